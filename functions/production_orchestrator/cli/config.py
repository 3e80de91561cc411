"""The configuration file: settings a person would otherwise repeat on every command, under the flags.

    flag given  >  <data dir>/production-orchestrator.toml  >  $XDG_CONFIG_HOME/production-orchestrator/
                                                                production-orchestrator.toml  >  built-in default

A command reads the keys it takes (``config_keys`` in its parser's defaults): ``start`` all of them,
``repropose``, ``revise`` and ``serve`` the model's. A resume takes none: it runs with the binding its
checkpoint recorded (running.resume_binding), and a flag given there is a claim the resume gate checks. An
unknown key, a value a key cannot take or a file that is not TOML stops the command with ``CONFIG_INVALID``,
naming the file and the key, before anything is read or written.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..agent.model_settings import PROVIDERS
from ..domain.errors import ConfigFileError
from . import inputs
from .output import PROG
from .root import DEFAULT_LINK_BASE

CONFIG_NAME = f"{PROG}.toml"
DEFAULT_PROVIDER = "deterministic"
ENV_XDG_CONFIG_HOME = "XDG_CONFIG_HOME"
MAX_VALUE_CHARS = 300
MAX_CONFIG_BYTES = 64 * 1024

# The model's settings (the provider binding's fields), and what ``start`` takes besides.
PROVIDER_KEYS = ("provider", "model", "region", "profile")
START_KEYS = (*PROVIDER_KEYS, "link_base", "approvers")


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string")
    if len(value) > MAX_VALUE_CHARS or not value.isprintable():
        raise ValueError(f"must be one line of at most {MAX_VALUE_CHARS} printable characters")
    return value.strip()


def _provider(value: Any) -> str:
    if value not in PROVIDERS:
        raise ValueError(f"{value!r} is not a provider (one of {', '.join(PROVIDERS)})")
    return str(value)


def _link_base(value: Any) -> str:
    try:
        return inputs.link_base(_text(value))
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


def _approvers(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError('must be a list of names or e-mail addresses, e.g. ["ana@example.com", "ben@example.com"]')
    names = [_text(item) for item in value]
    if any("," in name for name in names):
        raise ValueError("a name must not hold a comma (give each approver as its own string)")
    try:
        return inputs.names(",".join(names))
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


# Each key: how its value is checked, and what it sets (the help and the docs list these).
KEYS: Mapping[str, tuple[Callable[[Any], Any], str]] = {
    "provider": (_provider, f"which model runs the agent ({', '.join(PROVIDERS)}), as --provider"),
    "model": (_text, "the model id, as --model"),
    "region": (_text, "Bedrock's AWS region, as --region"),
    "profile": (_text, "the AWS profile for Bedrock, as --profile"),
    "link_base": (_link_base, "the URL approval links start with, as start --link-base"),
    "approvers": (_approvers, 'who approves a run, as start --approvers (a list: ["ana@example.com"])'),
}


def user_config_path() -> Path:
    """The user's file: ``$XDG_CONFIG_HOME/production-orchestrator/production-orchestrator.toml`` (else
    ``~/.config/...``)."""
    base = os.environ.get(ENV_XDG_CONFIG_HOME) or str(Path.home() / ".config")
    return Path(base) / PROG / CONFIG_NAME


def config_paths(data_dir: Path) -> tuple[Path, Path]:
    """The files read, the one that wins first: the data dir's, then the user's."""
    return data_dir / CONFIG_NAME, user_config_path()


def read_config_file(path: Path) -> dict[str, Any]:
    """The checked settings of one file (``{}`` when it does not exist); ``ConfigFileError`` otherwise."""
    import tomllib

    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # no file, or a data dir that is not one (its own error)
        return {}
    except OSError as exc:
        raise ConfigFileError(str(path), "", f"cannot be read ({exc.strerror})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigFileError(str(path), "", f"is larger than {MAX_CONFIG_BYTES // 1024} KB")
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigFileError(str(path), "", f"is not valid TOML ({exc})") from None
    settings: dict[str, Any] = {}
    for key, value in document.items():
        if key not in KEYS:
            known = ", ".join(KEYS)
            raise ConfigFileError(str(path), key, f"is not a setting (the settings are {known})")
        check, _ = KEYS[key]
        try:
            settings[key] = check(value)
        except ValueError as exc:
            raise ConfigFileError(str(path), key, str(exc)) from None
    return settings


def load_config(data_dir: Path) -> dict[str, tuple[Any, Path]]:
    """Every setting of both files with the file it came from; the data dir's wins over the user's."""
    found: dict[str, tuple[Any, Path]] = {}
    for path in reversed(config_paths(data_dir)):
        found.update({key: (value, path) for key, value in read_config_file(path).items()})
    return found


def apply_config(args: argparse.Namespace, data_dir: Path) -> None:
    """Fill each setting the command takes and no flag gave (``args.<key>`` is None) from the files; the keys
    filled are recorded in ``args.configured`` (key -> file), so what was typed stays known."""
    keys = tuple(getattr(args, "config_keys", ()))
    args.configured = {}
    if not keys:
        return
    for key, (value, path) in load_config(data_dir).items():
        if key in keys and getattr(args, key, None) is None:
            setattr(args, key, value)
            args.configured[key] = path
    if "link_base" in keys and args.link_base is None:
        args.link_base = DEFAULT_LINK_BASE


def explained() -> str:
    """The configuration section of ``--help`` (and so of the reference)."""
    rows = "\n".join(f"  {key:<10} {help_text}" for key, (_, help_text) in KEYS.items())
    return (
        f"configuration (the defaults of these flags; a flag given wins):\n"
        f"  read from <data dir>/{CONFIG_NAME}, then from\n"
        f"  ${ENV_XDG_CONFIG_HOME}/{PROG}/{CONFIG_NAME} (default ~/.config/{PROG}/);\n"
        f"  the data dir's wins. A resume runs with the model its checkpoint recorded.\n{rows}"
    )
