"""``arena-gen sign``: a detached Ed25519 signature over every file of a suite."""

from __future__ import annotations

from pathlib import Path

import click

from arena_gen.cli.options import user_errors


@click.command(name="sign",
               short_help="Sign every file of a suite with an Ed25519 key (manifest.json.sig).")
@click.argument("suite")
@click.option("--key", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The private key (from arena-gen keygen).")
def command(suite: str, key: Path) -> None:
    """Sign every file of SUITE (manifest.json and each <env>.jsonl, byte for byte) into
    SUITE/manifest.json.sig, replacing an older signature: a file added, dropped or changed
    after signing fails verify --public-key. Schemas and hashes are checked first; run verify
    before signing a release."""
    from arena_gen.core.signing import read_signature, sign_suite
    from arena_gen.core.suite_io import read_manifest
    from arena_gen.suite.seal import PUBLIC, read_public, sealed_entry

    with user_errors():
        public = (sealed_entry(read_manifest(suite)[1]) or {}).get("role") == PUBLIC
        out = sign_suite(suite, key, check=read_public if public else None)
        doc = read_signature(out)
    click.echo(f"signed every file of {out.parent} ({', '.join(sorted(doc['files']))}) with key "
               f"id {doc['key_id']}: wrote {out}")
