"""``arena-gen keygen``: make an Ed25519 key pair for signing released suites."""

from __future__ import annotations

from pathlib import Path

import click

from arena_gen.cli.options import user_errors


@click.command(name="keygen",
               short_help="Make an Ed25519 key pair (KEY, KEY.pub) to sign suites.")
@click.argument("key", type=click.Path(dir_okay=False, path_type=Path))
def command(key: Path) -> None:
    """Write a new signing key to KEY (private, mode 0600) and its public half to KEY.pub;
    an existing file is never overwritten. Keep KEY off the repository; publish KEY.pub."""
    from arena_gen.core.signing import generate_key

    with user_errors():
        key_id = generate_key(key)
    click.echo(f"wrote {key} (private: keep it secret, off the repository) and {key}.pub "
               f"(publish it)")
    click.echo(f"key id {key_id}")
