"""Detached Ed25519 signatures of released suites: who froze these bytes.

A signature (version 2) covers the exact bytes of every file of the suite: ``manifest.json``
and each ``<env>.jsonl`` its counts name, by sha256; since ``sign`` reads the suite first and
the reader refuses any line that is not canonical, the signed bytes are canonical. Reordered
lines, a re-serialised line or a line with a duplicate key changes a file's bytes, so its
signature no longer verifies (a manifest-only signature would not see them: the manifest pins
each task's content hash, not the bytes or order of its file). It lives beside the suite in
``manifest.json.sig`` (canonical JSON, schema ``signature``); the Ed25519 signature is over the
canonical bytes of that document without its ``signature`` field. The key inside the ``.sig``
is never trusted: verification takes the trusted public key from the user, and the embedded one
only names who did sign in an error. A version-1 signature (over ``manifest.json`` alone) is
refused with a message saying to re-sign; no released suite carries one.

``cryptography`` is an optional extra (``arena-gen[sign]``), imported only when a key is used.
"""

from __future__ import annotations

import base64
import binascii
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena_gen.core.bounded_io import read_bounded
from arena_gen.core.canon import canonical_json, sha256_hex
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.paths import check_creatable
from arena_gen.core.schema import loads, validate
from arena_gen.core.suite_io import (
    MANIFEST,
    SIGNATURE,
    SIGNATURE_TMP,
    ManifestRead,
    load_manifest,
    read_suite,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

ALGORITHM = "ed25519"
#: The signature format written and checked: 2 covers every file of the suite.
SCHEMA_VERSION = 2
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
    check_private_mode(path)
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


def check_private_mode(path: Path) -> None:
    """Refuse a private key that others may read (group or world bits set), as ssh does: a
    key anyone on the machine can copy signs for anyone."""
    try:
        mode = os.stat(path).st_mode & 0o777
    except OSError as exc:
        raise ArenaGenError(f"key {path}: cannot read: {exc.strerror or exc}") from None
    if mode & 0o077:
        raise ArenaGenError(f"key {path}: permissions {mode:04o} are too open: a private key "
                            f"must be readable by its owner only (chmod 600 {path}); refused")


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
        view = memoryview(data)
        while view:  # a short write is continued, a failed one (a full disk) removes the file
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
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


def suite_files(root: Path, manifest: dict[str, Any],
                raw_manifest: bytes | None = None) -> dict[str, str]:
    """sha256 of the bytes of every file a suite consists of: its manifest (``raw_manifest``,
    the bytes already read and decoded, when given) and the JSONL file of each env its counts
    name (the names a signature covers)."""
    names = [f"{env}.jsonl" for env in sorted(manifest["counts"])]
    out = {}
    if raw_manifest is None:
        names.insert(0, MANIFEST)
    else:
        out[MANIFEST] = sha256_hex(raw_manifest)
    for name in names:
        try:
            out[name] = sha256_hex((root / name).read_bytes())
        except OSError as exc:
            raise ArenaGenError(f"{root / name}: cannot read: {exc.strerror or exc}") from None
    return out


def _statement(doc: dict[str, Any]) -> bytes:
    """The bytes an Ed25519 signature is over: the document without its signature."""
    return canonical_json({k: v for k, v in doc.items() if k != "signature"}).encode("utf-8")


def sign_suite(folder: str | os.PathLike[str], key_path: str | os.PathLike[str],
               check: Callable[[Path], object] | None = None) -> Path:
    """Sign the exact bytes of every file of ``folder`` (see :func:`suite_files`); write (or
    replace) ``manifest.json.sig`` beside them and return its path. The suite is read first
    (schemas, hashes, canonical bytes; a sealed suite's public copy by ``check``, which must
    raise on a problem), so a broken suite is never signed."""
    key = load_private_key(key_path)
    read = load_manifest(folder)  # the bytes signed are the bytes checked
    if check is None:
        read_suite(folder, loaded=read)
    else:
        check(Path(folder))
    raw = _raw_public(key.public_key())
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "algorithm": ALGORITHM,
                           "files": suite_files(read.root, read.manifest, read.raw),
                           "key_id": key_id(raw),
                           "public_key": _b64(raw)}
    doc["signature"] = _b64(key.sign(_statement(doc)))
    out = read.root / SIGNATURE
    # a name of our own (random suffix, created exclusively): another file is never touched
    fd, name = tempfile.mkstemp(prefix=SIGNATURE_TMP, dir=read.root)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(canonical_json(doc) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        tmp.chmod(0o644)  # mkstemp makes it private; a signature is meant to be shared
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
    if isinstance(doc, dict) and doc.get("schema_version") == 1:
        raise SchemaError("a version-1 signature, which covers manifest.json only; this "
                          "arena-gen checks version-2 signatures, which cover every file of "
                          "the suite: re-sign it (arena-gen sign SUITE --key KEY)",
                          file=str(path), json_path="$.schema_version")
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
                    sig_path: str | os.PathLike[str] | None = None,
                    loaded: ManifestRead | None = None) -> str | None:
    """Whether every file of the suite is signed by the trusted key in ``public_key_path``:
    the problem (naming the signature file and the file that changed), or None. A key that
    cannot be used raises. With ``loaded`` (the manifest as read once) the manifest's bytes
    checked are the ones that were decoded."""
    trusted = load_public_key(public_key_path)
    _, _, invalid_signature = _crypto()
    read = loaded if loaded is not None else load_manifest(folder)
    root, manifest = read.root, read.manifest
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
    signed: dict[str, str] = doc["files"]
    present = suite_files(root, manifest, read.raw)
    for name in sorted(set(signed) | set(present)):
        if name not in present:
            return (f"{sig}, at $.files.{name}: signed, but the suite's manifest names no "
                    f"such file (a file was dropped from the suite after signing)")
        if name not in signed:
            return (f"{sig}, at $.files: does not cover {root / name} (a file was added to "
                    f"the suite after signing)")
        if signed[name] != present[name]:
            return (f"{sig}, at $.files.{name}: {root / name} has sha256 {present[name]}, "
                    f"not the signed {signed[name]} (its bytes changed after signing)")
    try:
        trusted.verify(signature, _statement(doc))
    except invalid_signature:
        return (f"{sig}, at $.signature: does not verify against key {key_id(given)} over the "
                f"signed file list (the signature or the list was altered)")
    return None
