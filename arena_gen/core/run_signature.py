"""Signed runs: the evaluator's Ed25519 signature over a run's plan, suite and chain head.

A run's hash chain (``trajectories.jsonl``'s ``prev`` links, ``run.json``'s head) holds no
secret: whoever recomputes every digest can forge a chain (oracle actions under the run's agent
name, a plan shrunk to the solved tasks, another suite). ``run --sign-key KEY`` closes that:
every time the run's head moves, ``run.json.sig`` is rewritten beside it, signing the digest of
the run's plan (:func:`~arena_gen.runner.rundir.plan_digest`), the suite's sha256 and the chain
head (and the head a write is about to make, so a kill between the two files still verifies).
``score --public-key`` and ``report --public-key`` then refuse a run whose signature is missing,
made by another key, or does not cover the plan in ``run.json``, the suite scored against and
the last line of ``trajectories.jsonl``. The key inside the ``.sig`` is never trusted: it only
names who did sign in an error.

The signature file is one canonical JSON line (``schema_version`` 1, ``kind``
``arena-gen-run``); the Ed25519 signature is over its canonical bytes without ``signature``.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena_gen.core.bounded_io import read_bounded
from arena_gen.core.canon import canonical_json
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.schema import loads
from arena_gen.core.signing import (
    ALGORITHM,
    MAX_BYTES,
    _crypto,
    _raw_public,
    key_id,
    load_private_key,
    load_public_key,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

#: The file beside run.json holding the run's signature.
RUN_SIGNATURE = "run.json.sig"
KIND = "arena-gen-run"
SCHEMA_VERSION = 1
_HEX = re.compile(r"^[0-9a-f]{64}$")


def _statement(doc: dict[str, Any]) -> bytes:
    return canonical_json({k: v for k, v in doc.items() if k != "signature"}).encode("utf-8")


class RunSigner:
    """The evaluator's key, signing a run's state each time its chain head moves."""

    def __init__(self, key_path: str | os.PathLike[str]) -> None:
        self.key = load_private_key(key_path)
        self.raw_public = _raw_public(self.key.public_key())

    def document(self, plan: str, suite_sha256: str, head: str,
                 pending: str | None = None) -> dict[str, Any]:
        """The signed ``run.json.sig`` document of one state of the run."""
        doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "kind": KIND,
                               "algorithm": ALGORITHM, "key_id": key_id(self.raw_public),
                               "public_key": base64.b64encode(self.raw_public).decode("ascii"),
                               "plan": plan, "suite_sha256": suite_sha256, "head": head}
        if pending is not None:
            doc["pending"] = pending
        doc["signature"] = base64.b64encode(self.key.sign(_statement(doc))).decode("ascii")
        return doc

    def write(self, folder: Path, plan: str, suite_sha256: str, head: str,
              pending: str | None = None) -> None:
        """Replace ``folder/run.json.sig`` durably and atomically (a failed write removes its
        temporary file)."""
        line = canonical_json(self.document(plan, suite_sha256, head, pending)) + "\n"
        out = folder / RUN_SIGNATURE
        tmp = folder / f".{RUN_SIGNATURE}.tmp"
        try:
            with open(tmp, "wb") as fh:
                fh.write(line.encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, out)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _field(doc: dict[str, Any], name: str, file: str, optional: bool = False) -> str | None:
    value = doc.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not _HEX.match(value):
        raise SchemaError("not a sha256 in hex", file=file, json_path=f"$.{name}")
    return value


def _b64(doc: dict[str, Any], name: str, size: int, file: str) -> bytes:
    try:
        raw = base64.b64decode(str(doc.get(name, "")), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise SchemaError(f"not the base64 of {size} bytes", file=file, json_path=f"$.{name}")
    return raw


def read_run_signature(folder: Path) -> dict[str, Any]:
    """``run.json.sig``, untrusted: bounded, UTF-8, its fields checked; raises naming the file
    and the JSON path, or that the run is not signed."""
    path = folder / RUN_SIGNATURE
    try:
        data = read_bounded(path, MAX_BYTES, "the run's signature")
    except FileNotFoundError:
        raise ArenaGenError(f"{path}: missing: the run is not signed (arena-gen run "
                            f"--sign-key KEY signs a run as it is written); refused under "
                            f"--public-key") from None
    except OSError as exc:
        raise ArenaGenError(f"{path}: cannot read: {exc.strerror or exc}") from None
    file = str(path)
    doc = loads(data, file=file)
    if not isinstance(doc, dict):
        raise SchemaError("not a run signature (a JSON object)", file=file)
    if doc.get("kind") != KIND or doc.get("schema_version") != SCHEMA_VERSION:
        raise SchemaError(f"not a version-{SCHEMA_VERSION} {KIND} signature", file=file,
                          json_path="$.kind")
    if doc.get("algorithm") != ALGORITHM:
        raise SchemaError(f"algorithm is not {ALGORITHM}", file=file, json_path="$.algorithm")
    for name in ("plan", "suite_sha256", "head"):
        _field(doc, name, file)
    _field(doc, "pending", file, optional=True)
    return doc


def check_run_signature(folder: str | os.PathLike[str], public_key_path: str | os.PathLike[str],
                        plan: str, suite_sha256: str, last: str) -> None:
    """Raise unless ``run.json.sig`` in ``folder`` is the trusted key's signature over this
    plan digest, this suite hash and ``last`` (the digest of the last line read, or of the plan
    when there is none) as the chain's head or pending head."""
    verify_run_signature(folder, load_public_key(public_key_path), str(public_key_path), plan,
                         suite_sha256, last)


def verify_run_signature(folder: str | os.PathLike[str], trusted: Ed25519PublicKey, name: str,
                         plan: str, suite_sha256: str, last: str) -> None:
    """:func:`check_run_signature` with the trusted key loaded (``name`` says where from)."""
    _, _, invalid_signature = _crypto()
    root = Path(folder)
    doc = read_run_signature(root)
    sig = str(root / RUN_SIGNATURE)
    claimed = _b64(doc, "public_key", 32, sig)
    signature = _b64(doc, "signature", 64, sig)
    given = _raw_public(trusted)
    if claimed != given:
        raise ArenaGenError(f"{sig}: signed by key id {key_id(claimed)}, not by the given key "
                            f"{key_id(given)} ({name}); refused")
    try:
        trusted.verify(signature, _statement(doc))
    except invalid_signature:
        raise ArenaGenError(f"{sig}, at $.signature: does not verify against key "
                            f"{key_id(given)} (the signature file was altered); refused") from None
    if doc["plan"] != plan:
        raise ArenaGenError(f"{sig}, at $.plan: the signed plan is not the one in run.json "
                            f"(its tasks, attempts, agent, mode, seed, budgets or suite were "
                            f"edited after signing); refused")
    if doc["suite_sha256"] != suite_sha256:
        raise ArenaGenError(f"{sig}, at $.suite_sha256: the run was signed on suite "
                            f"{doc['suite_sha256'][:16]}..., not the suite scored against "
                            f"({suite_sha256[:16]}...); refused")
    if last not in (doc["head"], doc.get("pending")):
        raise ArenaGenError(f"{sig}, at $.head: the signed chain head is not the digest of the "
                            f"last line of trajectories.jsonl (lines were added, removed or "
                            f"edited after signing, and the chain recomputed); refused")
