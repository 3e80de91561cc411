"""Shell completion scripts written from the parser, so they name exactly the commands and options it has.

    parser -> tree of nodes (command words -> sub-commands, options, each option's choices)
           -> bash: one function over a ``case`` per command path (``complete -F``)
           -> zsh:  the same walk with ``_describe`` for commands (summaries shown) and ``compadd`` for options
           -> fish: one ``complete -c`` line per command and option, conditioned on the words already typed

The scripts hold the tree itself: completing runs no Python, so a TAB answers at once. Hidden spellings (help
SUPPRESS) are left out, as ``--help`` leaves them out.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .output import PROG

SHELLS = ("bash", "zsh", "fish")
_FUNCTION = "_" + re.sub(r"[^A-Za-z0-9]", "_", PROG)


@dataclass(frozen=True)
class Option:
    """One option of a command: its spellings, help, and the values it offers (when it has choices)."""

    flags: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Node:
    """A command path (``()`` the program, ``("shop", "import")``), its summary, sub-commands and options."""

    path: tuple[str, ...]
    summary: str
    commands: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    values: tuple[str, ...] = ()  # what a positional argument offers (``completion bash|zsh|fish``)
    children: tuple[Node, ...] = field(default=(), repr=False)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").replace("%%", "%").split())


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def tree(parser: argparse.ArgumentParser, path: tuple[str, ...] = (), summary: str = "") -> Node:
    """The parser as a tree of nodes (hidden commands and options left out)."""
    options = tuple(
        Option(
            flags=tuple(a.option_strings),
            help=_one_line(a.help),
            takes_value=a.nargs != 0,
            choices=tuple(str(c) for c in a.choices) if a.choices else (),
        )
        for a in parser._actions
        if a.option_strings and a.help is not argparse.SUPPRESS
    )
    values = tuple(
        str(choice)
        for a in parser._actions
        if not a.option_strings and a.choices and not isinstance(a, argparse._SubParsersAction)
        for choice in a.choices
    )
    sub = _subparsers(parser)
    children: list[Node] = []
    if sub is not None:
        summaries = {a.dest: a.help for a in sub._choices_actions if a.help is not argparse.SUPPRESS}
        for name, child in sub.choices.items():
            if name in summaries:
                children.append(tree(child, (*path, name), _one_line(summaries[name])))
    return Node(path, summary, tuple(c.path[-1] for c in children), options, values, tuple(children))


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node under it, parents first."""
    yield node
    for child in node.children:
        yield from walk(child)


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``shell`` for ``parser``."""
    root = tree(parser)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](root)


def _words(items: Iterator[str] | tuple[str, ...]) -> str:
    return " ".join(items)


def _flags(node: Node) -> Iterator[str]:
    for option in node.options:
        yield from option.flags


def _valued(node: Node) -> Iterator[tuple[str, Option]]:
    for option in node.options:
        if option.takes_value:
            for flag in option.flags:
                yield flag, option


def _bash(root: Node) -> str:
    nodes = list(walk(root))
    children = "\n".join(f'        "{" ".join(n.path)}") subs="{_words(n.commands)}" ;;' for n in nodes if n.commands)
    offers = "\n".join(
        f'        "{" ".join(n.path)}") words="{_words((*n.commands, *n.values, *_flags(n)))}" ;;' for n in nodes
    )
    values = "\n".join(
        f'        "{" ".join(n.path)} {flag}") words="{_words(o.choices)}"; [ -n "$words" ] || return 0 ;;'
        for n in nodes
        for flag, o in _valued(n)
    )
    return f"""# bash completion for {PROG} (written by `{PROG} completion bash` from its parser)
# Load it with: source <({PROG} completion bash)   or save it under ~/.local/share/bash-completion/completions/{PROG}

{_FUNCTION}_subs() {{
    case "$1" in
{children}
        *) subs="" ;;
    esac
}}

{_FUNCTION}() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" cmdpath="" subs word i words=""
    [ "$COMP_CWORD" -gt 1 ] && prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${{COMP_WORDS[i]}}"
        {_FUNCTION}_subs "$cmdpath"
        case " $subs " in
            *" $word "*) cmdpath="${{cmdpath:+$cmdpath }}$word" ;;
        esac
    done
    if [ -n "$prev" ] && [ "${{prev#-}}" != "$prev" ]; then
        case "$cmdpath $prev" in
{values}
        esac
    fi
    if [ -z "$words" ]; then
        case "$cmdpath" in
{offers}
        esac
    fi
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}

complete -o default -F {_FUNCTION} {PROG}
"""


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _zsh(root: Node) -> str:
    nodes = list(walk(root))
    described = {n.path: " ".join(_zsh_quote(f"{c.path[-1]}:{c.summary}") for c in n.children) for n in nodes}
    commands = "\n".join(
        f'        "{" ".join(n.path)}") commands=({described[n.path]}) ;;' for n in nodes if n.children
    )
    options = "\n".join(
        f'        "{" ".join(n.path)}") options=({_words(_flags(n))}) positional=({_words(n.values)}) ;;' for n in nodes
    )
    values = "\n".join(
        f'        "{" ".join(n.path)} {flag}") values=({_words(o.choices)}) ;;' for n in nodes for flag, o in _valued(n)
    )
    return f"""#compdef {PROG}
# zsh completion for {PROG} (written by `{PROG} completion zsh` from its parser)
# Load it with: source <({PROG} completion zsh)   or save it as _{PROG} in a directory on $fpath

{_FUNCTION}() {{
    local cmdpath="" word prev="${{words[CURRENT-1]}}" i
    local -a commands options values subs positional
    for ((i = 2; i < CURRENT; i++)); do
        word="${{words[i]}}"
        commands=()
        case "$cmdpath" in
{commands}
        esac
        subs=(${{commands%%:*}})
        if (( ${{subs[(Ie)$word]}} )); then cmdpath="${{cmdpath:+$cmdpath }}$word"; fi
    done
    if [[ "$prev" == -* ]]; then
        values=()
        case "$cmdpath $prev" in
{values}
        *) values=(__none__) ;;
        esac
        if [[ "$values" != __none__ ]]; then
            (( ${{#values}} )) && compadd -- $values || _files
            return
        fi
    fi
    commands=() options=() positional=()
    case "$cmdpath" in
{commands}
    esac
    case "$cmdpath" in
{options}
    esac
    if [[ "$PREFIX" == -* ]]; then
        compadd -- $options
    else
        (( ${{#commands}} )) && _describe -t commands command commands
        (( ${{#positional}} )) && compadd -- $positional
    fi
}}

compdef {_FUNCTION} {PROG}
"""


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_condition(node: Node, root: Node) -> str:
    """Fish's test that the words typed so far are exactly ``node.path`` (and no sub-command after it)."""
    if not node.path:
        return "__fish_use_subcommand"
    parts = [f"__fish_seen_subcommand_from {word}" for word in node.path]
    if node.commands:
        parts.append(f"not __fish_seen_subcommand_from {_words(node.commands)}")
    return "; and ".join(parts)


def _fish(root: Node) -> str:
    lines = [
        f"# fish completion for {PROG} (written by `{PROG} completion fish` from its parser)",
        f"# Load it with: {PROG} completion fish | source   or save it as ~/.config/fish/completions/{PROG}.fish",
        f"complete -c {PROG} -f",
    ]
    for node in walk(root):
        condition = _fish_quote(_fish_condition(node, root))
        if node.values:
            lines.append(f"complete -c {PROG} -n {condition} -a {_fish_quote(' '.join(node.values))}")
        for child in node.children:
            lines.append(f"complete -c {PROG} -n {condition} -a {child.path[-1]} -d {_fish_quote(child.summary)}")
        for option in node.options:
            spelled = " ".join(f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}" for flag in option.flags)
            value = ""
            if option.takes_value:
                value = f" -x -a {_fish_quote(' '.join(option.choices))}" if option.choices else " -r -F"
            lines.append(f"complete -c {PROG} -n {condition} {spelled}{value} -d {_fish_quote(option.help[:80])}")
    return "\n".join(lines) + "\n"
