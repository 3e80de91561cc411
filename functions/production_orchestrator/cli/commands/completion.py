"""``completion bash|zsh|fish``: the shell completion script, written from the parser (cli/completion.py)."""

from __future__ import annotations

import argparse
from typing import Any

from ..output import EXIT_OK, READ_ONLY
from ..parser import GROUP_OPERATIONS, command

GROUP = GROUP_OPERATIONS


def _completion(args: argparse.Namespace) -> int:
    from ..completion import script
    from ..main import root_parser

    print(script(root_parser(), args.shell), end="")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``completion``."""
    from ..completion import SHELLS

    complete = command(
        subparsers,
        "completion",
        summary="the shell completion script (bash, zsh or fish)",
        description="Print the completion script of a shell, written from this program's parser: commands, "
        "their actions and options, and the values an option offers. Completing runs no Python.",
        examples=[
            "completion bash > ~/.local/share/bash-completion/completions/production-orchestrator",
            'completion zsh > "${fpath[1]}/_production-orchestrator"',
            "completion fish > ~/.config/fish/completions/production-orchestrator.fish",
        ],
        handler=_completion,
    )
    complete.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    complete.set_defaults(on_interrupt=lambda _: READ_ONLY, read_only=True)
