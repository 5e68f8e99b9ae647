"""``arena-gen sign``: a detached Ed25519 signature of a suite's manifest."""

from __future__ import annotations

from pathlib import Path

import click

from arena_gen.cli.options import user_errors


@click.command(name="sign",
               short_help="Sign a suite's manifest with an Ed25519 key (manifest.json.sig).")
@click.argument("suite")
@click.option("--key", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The private key (from arena-gen keygen).")
def command(suite: str, key: Path) -> None:
    """Sign SUITE/manifest.json into SUITE/manifest.json.sig (replacing an older signature);
    the manifest pins every task's sha256, so this covers the suite. Schemas and hashes are
    checked first; run verify before signing a release."""
    from arena_gen.core.signing import read_signature, sign_suite
    from arena_gen.core.suite_io import read_manifest
    from arena_gen.suite.seal import PUBLIC, read_public, sealed_entry

    with user_errors():
        public = (sealed_entry(read_manifest(suite)[1]) or {}).get("role") == PUBLIC
        out = sign_suite(suite, key, check=read_public if public else None)
        key_id = read_signature(out)["key_id"]
    click.echo(f"signed {out.parent / 'manifest.json'} with key id {key_id}: wrote {out}")
