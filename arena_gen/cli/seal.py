"""``arena-gen seal``: write the public copy of a sealed suite (commitments for hidden parts)."""

from __future__ import annotations

from pathlib import Path

import click

from arena_gen.cli.options import display_option, secret_option, user_errors


@click.command(name="seal")
@click.argument("suite")
@secret_option("The secret the suite was built with (build --secret).", required=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder of the public copy.")
@click.option("--force", is_flag=True, default=False,
              help="Replace a suite already in --out (a folder arena-gen did not write is "
                   "never replaced).")
@display_option
def command(suite: str, secret_file: Path, out: Path, force: bool, display: str | None) -> None:
    """Write the public copy of a sealed SUITE: public fields kept, every hidden part (params,
    world, rules text, certificate) replaced by a salted sha256 commitment."""
    from arena_gen.suite.seal import Secret, read_public, write_public
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    with user_errors():
        secret = Secret.read(secret_file)
        write_public(suite, secret, out, force=force)
        public = read_public(out)
    ui.table(f"Public copy of {suite} -> {out}", ["env", "tasks"],
             [[env, len(lines)] for env, lines in sorted(public.tasks.items())])
    ui.line(f"public suite sha256 {public.manifest['suite_sha256']}; publish {out}, keep "
            f"{suite} and the secret private")
