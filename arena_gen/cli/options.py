"""Options and helpers shared by several commands (kept free of heavy imports)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from arena_gen.core.errors import MESSAGE_CHARS, ArenaGenError, printable
from arena_gen.ui import DISPLAYS

display_option: Callable[[Any], Any] = click.option(
    "--display", type=click.Choice(DISPLAYS), default=None,
    help="Output style (default: rich on a terminal, plain otherwise).")


def secret_option(help_text: str, *, required: bool = False) -> Callable[[Any], Any]:
    """``--secret FILE``: a sealed suite's secret (a file path; its bytes are the secret). A
    required one is given no default: click 8.3+ counts an explicit ``default=None`` as a value
    and would let the command run without the option (a traceback, issue 41)."""
    if required:
        return click.option("--secret", "secret_file", required=True,
                            type=click.Path(dir_okay=False, exists=True, path_type=Path),
                            help=help_text)
    return click.option("--secret", "secret_file", default=None,
                        type=click.Path(dir_okay=False, exists=True, path_type=Path),
                        help=help_text)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn an :class:`ArenaGenError` into a clean one-line click error (exit code 1); so is
    an OSError (a disk full, a folder made read-only mid-run), naming its file."""
    try:
        yield
    except ArenaGenError as exc:  # ids and texts from untrusted files: escaped and bounded
        raise click.ClickException(printable(str(exc), MESSAGE_CHARS)) from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise click.ClickException(printable(f"{where}{exc.strerror or exc}",
                                             MESSAGE_CHARS)) from None


def split_list(value: str | None) -> list[str] | None:
    """Parse a comma-separated option value; None when empty."""
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def env_list(value: str | None) -> list[str] | None:
    """Parse ``--env a,b`` and check every name is a registered env."""
    from arena_gen.core import registry

    names = split_list(value)
    for name in names or ():
        registry.get(name)
    return names


def env_versions(value: str | None) -> dict[str, int]:
    """Parse ``--versions lights=5,repo=3``, each a registered (env, version)."""
    from arena_gen.core import registry

    out: dict[str, int] = {}
    for item in split_list(value) or ():
        name, _, number = item.partition("=")
        if not number.isdigit():
            raise click.BadParameter(f"{item!r}: write ENV=VERSION, e.g. lights=5",
                                     param_hint="--versions")
        out[name] = registry.get(name, int(number)).version
    return out


class AgentChoice(click.Choice):  # type: ignore[type-arg]
    """``--agent``'s choices, read from the registry when first needed (not at import)."""

    def __init__(self) -> None:
        super().__init__([])

    @property  # type: ignore[override]
    def choices(self) -> list[str]:
        from arena_gen.agents.registry import agent_names

        return agent_names()

    @choices.setter
    def choices(self, value: object) -> None:
        """click sets the choices in ``__init__``; they always come from the registry."""
