"""The ``arena-gen`` command line: one module per command, attached to the ``main`` group here.

Every option can also be set through an ``ARENA_GEN_<COMMAND>_<OPTION>`` environment variable.
Command modules import the library only inside their command bodies, so ``--help`` stays fast.
"""

from __future__ import annotations

import click

from .. import __version__
from . import build, import_, play, report, run, score, show, verify


@click.group(context_settings={"auto_envvar_prefix": "ARENA_GEN",
                               "help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena-gen")
def main() -> None:
    """Generate, verify, freeze, run and score hidden-rule agent benchmarks."""


for _module in (build, verify, show, run, play, score, report, import_):
    main.add_command(_module.command)

__all__ = ["main"]
