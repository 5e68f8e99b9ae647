"""Detached Ed25519 signatures of released suites: who froze these bytes.

A suite's ``manifest.json`` pins every task line's sha256 and a suite hash over them, and
``verify`` checks the lines against it; so a signature over the manifest's exact bytes covers
the whole suite. It lives beside it in ``manifest.json.sig`` (canonical JSON, schema
``signature``). The key inside the ``.sig`` is never trusted: verification takes the trusted
public key from the user, and the embedded one only names who did sign in an error.

``cryptography`` is an optional extra (``arena-gen[sign]``), imported only when a key is used.
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena_gen.core.bounded_io import read_bounded
from arena_gen.core.canon import canonical_json, sha256_hex
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.paths import check_creatable
from arena_gen.core.schema import loads, validate
from arena_gen.core.suite_io import MANIFEST, SIGNATURE, SIGNATURE_TMP, read_suite, resolve_suite

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

ALGORITHM = "ed25519"
#: Largest key or signature file read: ours are a few hundred bytes; a hostile one is refused
#: before it is parsed.
MAX_BYTES = 64 * 1024
INSTALL_HINT = "pip install 'arena-gen[sign]'"


def _crypto() -> tuple[Any, Any, Any]:
    """``(ed25519, serialization, InvalidSignature)``, or the project's error naming the extra."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise ArenaGenError("signing needs the cryptography package: "
                            f"{INSTALL_HINT}") from None
    return ed25519, serialization, InvalidSignature


def _raw_public(key: Ed25519PublicKey) -> bytes:
    _, serialization, _ = _crypto()
    raw: bytes = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw


def key_id(raw_public: bytes) -> str:
    """The short name of a key users compare: 16 hex digits of the sha256 of its raw bytes."""
    return sha256_hex(raw_public)[:16]


def _read_small(path: Path, what: str) -> bytes:
    try:
        return read_bounded(path, MAX_BYTES, what)
    except OSError as exc:
        raise ArenaGenError(f"{what} {path}: cannot read: {exc.strerror or exc}") from None
    except SchemaError as exc:  # a FIFO or device, or larger than any key
        raise ArenaGenError(f"{what} {exc}") from None


def load_private_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """The signing key in ``path`` (PKCS8 PEM, unencrypted, as ``keygen`` writes it)."""
    ed25519, serialization, _ = _crypto()
    path = Path(path)
    data = _read_small(path, "key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:  # TypeError: the key is encrypted
        raise ArenaGenError(f"key {path}: not an unencrypted PEM private key ({exc}); "
                            f"arena-gen keygen writes one") from None
    except Exception as exc:  # UnsupportedAlgorithm and its kin
        raise ArenaGenError(f"key {path}: unreadable private key ({exc})") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise ArenaGenError(f"key {path}: a {type(key).__name__}, not an Ed25519 key")
    return key


def load_public_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """The trusted public key in ``path`` (SubjectPublicKeyInfo PEM, ``KEY.pub``)."""
    ed25519, serialization, _ = _crypto()
    path = Path(path)
    data = _read_small(path, "public key")
    if b"PRIVATE KEY" in data:
        raise ArenaGenError(f"public key {path}: holds a private key; pass its .pub file")
    try:
        key = serialization.load_pem_public_key(data)
    except Exception as exc:  # ValueError, UnsupportedAlgorithm
        raise ArenaGenError(f"public key {path}: not a PEM public key ({exc}); arena-gen "
                            f"keygen writes one as KEY.pub") from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise ArenaGenError(f"public key {path}: a {type(key).__name__}, not an Ed25519 key")
    return key


def public_key_id(path: str | os.PathLike[str]) -> str:
    """The key id of the public key in ``path``."""
    return key_id(_raw_public(load_public_key(path)))


def _create_exclusive(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # whatever the umask
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def generate_key(path: str | os.PathLike[str]) -> str:
    """Write a new signing key to ``path`` (mode 0600) and its public half to ``path.pub``;
    refuse to overwrite either. Returns the key id."""
    ed25519, serialization, _ = _crypto()
    path = Path(path)
    public = path.with_name(path.name + ".pub")
    for target in (path, public):
        if target.exists() or target.is_symlink():
            raise ArenaGenError(f"{target} exists; refusing to overwrite a key (choose another "
                                f"name or remove it yourself)")
        check_creatable(target, "key")
    key = ed25519.Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    _create_exclusive(path, private_pem, 0o600)
    try:
        _create_exclusive(public, public_pem, 0o644)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return key_id(_raw_public(key.public_key()))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def sign_suite(folder: str | os.PathLike[str], key_path: str | os.PathLike[str]) -> Path:
    """Sign the exact bytes of ``folder/manifest.json``; write (or replace)
    ``manifest.json.sig`` beside it and return its path. The suite is read first (schemas and
    hashes), so a broken suite is never signed."""
    key = load_private_key(key_path)
    root = read_suite(folder).path
    manifest = read_bounded(root / MANIFEST, what="manifest")
    raw = _raw_public(key.public_key())
    doc = {"schema_version": 1, "algorithm": ALGORITHM, "file": MANIFEST,
           "sha256": sha256_hex(manifest), "key_id": key_id(raw), "public_key": _b64(raw),
           "signature": _b64(key.sign(manifest))}
    out = root / SIGNATURE
    for stale in root.glob(f"{SIGNATURE_TMP}*"):  # left by a signing that was killed
        stale.unlink(missing_ok=True)
    tmp = root / f"{SIGNATURE_TMP}{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(canonical_json(doc) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return out


def read_signature(path: Path) -> dict[str, Any]:
    """One ``.sig`` document, untrusted: bounded, UTF-8, schema-checked; raises naming the
    file and the JSON path."""
    try:
        data = read_bounded(path, MAX_BYTES, "the signature")
    except FileNotFoundError:
        raise ArenaGenError(f"{path}: missing, the suite is not signed (arena-gen sign SUITE "
                            f"--key KEY writes it)") from None
    except OSError as exc:
        raise ArenaGenError(f"{path}: cannot read: {exc.strerror or exc}") from None
    doc = loads(data, file=str(path))
    validate(doc, "signature", file=str(path))
    out: dict[str, Any] = doc
    return out


def _decode(doc: dict[str, Any], field: str, size: int, path: Path) -> bytes:
    try:
        raw = base64.b64decode(doc[field], validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise SchemaError(f"not the base64 of {size} bytes", file=str(path),
                          json_path=f"$.{field}")
    return raw


def check_signature(folder: str | os.PathLike[str], public_key_path: str | os.PathLike[str],
                    sig_path: str | os.PathLike[str] | None = None) -> str | None:
    """Whether the suite's manifest is signed by the trusted key in ``public_key_path``: the
    problem (naming the signature file), or None. A key that cannot be used raises."""
    trusted = load_public_key(public_key_path)
    _, _, invalid_signature = _crypto()
    root = resolve_suite(folder)
    sig = Path(sig_path) if sig_path is not None else root / SIGNATURE
    try:
        doc = read_signature(sig)
        claimed = _decode(doc, "public_key", 32, sig)
        signature = _decode(doc, "signature", 64, sig)
    except ArenaGenError as exc:
        return str(exc)
    if key_id(claimed) != doc["key_id"]:
        return (f"{sig}, at $.key_id: {doc['key_id']} is not the id of its public_key "
                f"({key_id(claimed)})")
    given = _raw_public(trusted)
    if claimed != given:
        return (f"{sig}: signed by key id {doc['key_id']}, not by the given key "
                f"{key_id(given)} ({public_key_path})")
    manifest = read_bounded(root / MANIFEST, what="manifest")
    if sha256_hex(manifest) != doc["sha256"]:
        return (f"{sig}, at $.sha256: {root / MANIFEST} has sha256 {sha256_hex(manifest)}, "
                f"not the signed {doc['sha256']} (the manifest changed after signing)")
    try:
        trusted.verify(signature, manifest)
    except invalid_signature:
        return (f"{sig}, at $.signature: does not verify against key {key_id(given)} over "
                f"{root / MANIFEST} (the manifest or the signature was altered)")
    return None
