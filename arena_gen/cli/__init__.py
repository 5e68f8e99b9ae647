"""The ``arena-gen`` command line: one module per command, attached to the ``main`` group here.

Every option can also be set through an ``ARENA_GEN_<COMMAND>_<OPTION>`` environment variable.
Command modules import the library only inside their command bodies, so ``--help`` stays fast.
"""

from __future__ import annotations

import sys

import click

from arena_gen.cli import (
    build,
    export_results,
    export_sft,
    import_,
    keygen,
    overlap,
    play,
    prove,
    report,
    run,
    score,
    seal,
    serve,
    show,
    sign,
    stream,
    verify,
)
from arena_gen.core.version import __version__


@click.group(context_settings={"auto_envvar_prefix": "ARENA_GEN",
                               "help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena-gen")
def main() -> None:
    """Generate, verify, freeze, run and score hidden-rule agent benchmarks."""
    for std in (sys.stdout, sys.stderr):  # a path from argv may hold undecodable bytes
        reconfigure = getattr(std, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


for _module in (build, verify, show, run, play, score, report, import_, keygen, sign, stream,
                overlap, export_sft, export_results, seal, serve, prove):
    main.add_command(_module.command)


def envvar_name(command: str, option: click.Option) -> str:
    """``ARENA_GEN_<COMMAND>_<OPTION>``: the option's longest ``--name``, upper-cased, dashes as
    underscores (not its Python name: ``--env`` stores into ``envs``)."""
    longest = max((o for o in option.opts if o.startswith("--")), key=len)
    return f"ARENA_GEN_{command}_{longest[2:]}".upper().replace("-", "_")


def _follow_the_envvar_rule(group: click.Group) -> None:
    """Give every option the variable the documented rule names. click derives one from the
    Python name, which differs when an option stores elsewhere (``--html`` into ``html_out``);
    an option's own variable (``RAY_ADDRESS``) is kept as a fallback, and ``--help`` shows
    them."""
    for name, command in group.commands.items():
        for param in command.params:
            if not isinstance(param, click.Option) or not any(
                    o.startswith("--") for o in param.opts):
                continue
            wanted = envvar_name(name, param)
            own = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar or [])
            param.envvar = [wanted, *(v for v in own if v != wanted)]
            param.show_envvar = True  # --help names the variables: [env var: ...]


_follow_the_envvar_rule(main)

__all__ = ["main"]
