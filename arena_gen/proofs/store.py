"""Where proofs live beside a suite and what binds each to its task.

``SUITE/proofs/<task-id>.drup.xz`` holds one xz-compressed DRUP proof whose first comment lines
name the task, its content hash, its exact minimum ``k`` and the hash of the CNF it refutes;
``SUITE/proofs/manifest.json`` lists every proof with the same binding and the sha256 of the
compressed file. The released task files are never touched: a rebuild or a signature compares
the suite's own files only.
"""

from __future__ import annotations

import json
import lzma
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena_gen.core.bounded_io import read_bounded
from arena_gen.core.canon import sha256_hex
from arena_gen.core.task import Task
from arena_gen.proofs import lights_cnf, parts, repo_cnf, repo_parts
from arena_gen.proofs.drup import ProofError

PROOFS_DIR = "proofs"
MANIFEST = "manifest.json"
FORMAT = 1
SUFFIX = ".drup.xz"
MAX_COMPRESSED = 64 << 20
MAX_TEXT = 512 << 20
MAX_MANIFEST = 16 << 20
#: The header lines a proof starts with (``c <key> <value>``), in this order.
HEADER_KEYS = ("task", "task-sha256", "min-steps", "encoder", "cnf-sha256", "solver")
ENTRY_KEYS = {"task_sha256": str, "min_steps": int, "encoder": str, "cnf_sha256": str,
              "file": str, "proof_sha256": str, "bytes": int, "lines": int, "solver": str}


class Encoding(Protocol):
    """What a second encoder returns: the CNF "a completion of at most ``steps`` turns exists"."""

    @property
    def steps(self) -> int: ...
    @property
    def variables(self) -> int: ...
    @property
    def clauses(self) -> Sequence[Sequence[int]]: ...
    def sha256(self) -> str: ...


@dataclass(frozen=True)
class Splitter:
    """How one env's worlds split into closed parts for decomposed proofs (checker side): the
    manifest key of a part's members, their count, the closure check, a part as a world of
    its own, and the world's minimum from its parts' minima."""

    key: str
    count: Callable[[Any], int]
    check_closed: Callable[[Any, list[list[int]]], None]
    sub_world: Callable[[Any, list[int]], Any]
    total: Callable[[list[int]], int]


def _lights_closed(world: Any, found: list[list[int]]) -> None:
    parts.check_closed(lights_cnf.read_world(world)[1], found)


LIGHTS_PARTS = Splitter("bulbs", lambda world: lights_cnf.read_world(world)[0], _lights_closed,
                        lambda world, bulbs: parts.sub_world(list(world["conditions"]), bulbs),
                        sum)
REPO_PARTS = Splitter("packages", repo_parts.count, repo_parts.check_closed,
                      repo_parts.sub_world, repo_parts.total)


@dataclass(frozen=True)
class Encoder:
    """A second encoder of one env's rules: its name, the env versions it follows, the CNF."""

    name: str
    versions: frozenset[int]
    encode: Callable[[Any, int], Encoding]
    #: Proof-logging solvers, tried in order (the first whose proof checks is kept).
    solvers: tuple[str, ...] = ("cadical195", "glucose4")
    #: How its worlds split into closed parts (decomposed proofs).
    parts: Splitter = LIGHTS_PARTS


ENCODERS = {"lights": Encoder(lights_cnf.ENCODER, lights_cnf.GAME_VERSIONS, lights_cnf.encode),
            # Glucose first: its refutations of the repo claims are shorter (seed-7 Challenge,
            # repo-challenge-7-0001: 16,206 proof lines against CaDiCaL's 39,002).
            "repo": Encoder(repo_cnf.ENCODER, repo_cnf.GAME_VERSIONS, repo_cnf.encode,
                            ("glucose4", "cadical195"), REPO_PARTS)}


def unprovable(task: Task) -> str | None:
    """Why a task has no proof to make or check (None when it has one)."""
    encoder = ENCODERS.get(task.env)
    if encoder is None:
        return f"no second encoder for env {task.env!r}"
    if task.env_version not in encoder.versions:
        return f"{encoder.name} does not follow {task.env} v{task.env_version}"
    k = task.certificate.min_steps
    if type(k) is not int or k < 1:
        return "no exact minimum in the certificate (bounds only): nothing to prove"
    return None


def claim(task: Task) -> Encoding:
    """The CNF a proof must refute: "a completion of at most min_steps - 1 turns exists"."""
    reason = unprovable(task)
    if reason is not None:
        raise ProofError(f"task {task.id}: {reason}")
    k = task.certificate.min_steps
    assert isinstance(k, int)
    return ENCODERS[task.env].encode(task.world, k - 1)


#: A decomposed proof's section line: ``c part <i> bulbs <b,b,...> min-steps <k> cnf-sha256 <h>``
#: (``packages`` in place of ``bulbs`` for repo).
PART_LINE = "c part"


def decomposition(task: Task) -> list[tuple[list[int], int]] | None:
    """The parts and part minima a decomposed proof of ``task`` claims (the prover's choice:
    the certificate's ``parts`` and ``part_min_steps``, when it lists more than one part), or
    None for a proof of the whole world. The checker trusts none of it (:mod:`.parts`)."""
    found, minima = task.certificate.facts.get("parts"), task.certificate.facts.get(
        "part_min_steps")
    if not isinstance(found, list) or not isinstance(minima, list) or len(found) < 2 \
            or len(found) != len(minima):
        return None
    return [(list(bulbs), int(k)) for bulbs, k in zip(found, minima, strict=True)]


def part_claim(task: Task, members: list[int], k: int) -> Encoding:
    """The CNF a part's section must refute: the part (bulbs or packages), as a world of its
    own, has no completion of at most ``k - 1`` turns."""
    encoder = ENCODERS[task.env]
    return encoder.encode(encoder.parts.sub_world(task.world, members), k - 1)


def parts_sha256(encodings: list[Encoding]) -> str:
    """What a decomposed proof's header binds: the hash of its parts' formula hashes."""
    return sha256_hex("\n".join(e.sha256() for e in encodings).encode("ascii"))


def part_line(index: int, bulbs: list[int], k: int, enc: Encoding, key: str = "bulbs") -> str:
    return (f"{PART_LINE} {index} {key} {','.join(map(str, bulbs))} min-steps {k} "
            f"cnf-sha256 {enc.sha256()}")


def file_name(task_id: str) -> str:
    """The proof's file name: the task id (checked safe) and the suffix."""
    if not task_id or not all(ch.isalnum() or ch in "-_." for ch in task_id) \
            or task_id.startswith("."):
        raise ProofError(f"task id {task_id[:60]!r} cannot name a proof file")
    return task_id + SUFFIX


def header(task: Task, enc: Encoding | list[Encoding], solver: str) -> list[str]:
    """The comment lines that bind a proof to its task and formula (a decomposed proof's: to
    its parts' formulas)."""
    k = task.certificate.min_steps
    digest = parts_sha256(enc) if isinstance(enc, list) else enc.sha256()
    values = (task.id, task.sha256, str(k), ENCODERS[task.env].name, digest, solver)
    how = (f"of fewer than {k} turns ({len(enc)} parts, one refutation each)"
           if isinstance(enc, list) else f"of at most {enc.steps} turns")
    return [f"c arena-gen proof: task {task.id} has no completion {how}"] + \
        [f"c {key} {value}" for key, value in zip(HEADER_KEYS, values, strict=True)]


def read_header(lines: list[str]) -> dict[str, str]:
    """The ``c key value`` lines at the top of a proof."""
    out: dict[str, str] = {}
    for line in lines[1:1 + len(HEADER_KEYS)]:
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0] == "c":
            out[parts[1]] = parts[2]
    return out


def compress(lines: list[str]) -> bytes:
    """xz bytes of the proof text (deterministic for equal text)."""
    return lzma.compress(("\n".join(lines) + "\n").encode("ascii"), format=lzma.FORMAT_XZ,
                         preset=9)


def decompress(data: bytes) -> list[str]:
    """The proof's lines, refusing a broken stream or text above ``MAX_TEXT`` bytes."""
    unpacker = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    try:
        text = unpacker.decompress(data, max_length=MAX_TEXT + 1)
    except lzma.LZMAError as exc:
        raise ProofError(f"not a valid xz stream ({exc})") from None
    if len(text) > MAX_TEXT:
        raise ProofError(f"decompresses to more than {MAX_TEXT} bytes (the limit)")
    if not unpacker.eof or unpacker.unused_data:
        raise ProofError("the xz stream is truncated or followed by other bytes")
    try:
        return text.decode("ascii").splitlines()
    except UnicodeDecodeError:
        raise ProofError("the proof text is not ASCII") from None


def proofs_dir(suite: Path) -> Path:
    return suite / PROOFS_DIR


def write_manifest(suite: Path, entries: dict[str, dict[str, Any]],
                   envs: Collection[str] | None = None) -> None:
    """Write ``proofs/manifest.json`` (sorted, replaced in one rename); ``envs``, the envs whose
    tasks were all proved, is listed when given."""
    doc: dict[str, Any] = {"format": FORMAT, "proofs": dict(sorted(entries.items()))}
    if envs is not None:
        doc["envs"] = sorted(envs)
    target = proofs_dir(suite) / MANIFEST
    temp = target.with_name(MANIFEST + ".tmp")
    temp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temp, target)


def write_proof(suite: Path, name: str, data: bytes) -> None:
    """Write one compressed proof (replaced in one rename)."""
    target = proofs_dir(suite) / name
    temp = target.with_name(name + ".tmp")
    temp.write_bytes(data)
    os.replace(temp, target)


def read_manifest(suite: Path) -> dict[str, dict[str, Any]]:
    """The manifest's entries by task id, every field's type checked (messages name the path)."""
    return _read_doc(suite)[0]


def proved_envs(suite: Path) -> set[str]:
    """The envs whose every provable task needs a proof here: those the manifest lists under
    ``envs`` or, in a manifest without that list (made before repo proofs), the envs of its
    proofs' encoders."""
    entries, envs = _read_doc(suite)
    if envs is not None:
        return envs
    names = {e["encoder"] for e in entries.values()}
    return {env for env, encoder in ENCODERS.items() if encoder.name in names}


def _read_doc(suite: Path) -> tuple[dict[str, dict[str, Any]], set[str] | None]:
    """The manifest's entries and its ``envs`` list (None when it has none), checked."""
    path = proofs_dir(suite) / MANIFEST
    if not path.is_file():
        raise ProofError(f"{path}: missing (make the proofs with arena-gen prove {suite})")
    try:
        doc = json.loads(read_bounded(path, MAX_MANIFEST, "the proofs manifest"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProofError(f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT \
            or not isinstance(doc.get("proofs"), dict):
        raise ProofError(f"{path}: expected {{\"format\": {FORMAT}, \"proofs\": {{...}}}}")
    for task_id, entry in doc["proofs"].items():
        where = f"{path}: $.proofs[{json.dumps(task_id)[:80]}]"
        if not isinstance(entry, dict):
            raise ProofError(f"{where}: expected an object")
        for key, kind in ENTRY_KEYS.items():
            if type(entry.get(key)) is not kind:
                raise ProofError(f"{where}.{key}: expected a {kind.__name__}")
        if "parts" in entry and not isinstance(entry["parts"], list):
            raise ProofError(f"{where}.parts: expected a list")
    envs = doc.get("envs")
    if envs is not None and (not isinstance(envs, list)
                             or not all(isinstance(e, str) for e in envs)):
        raise ProofError(f"{path}: $.envs: expected a list of env names")
    return dict(doc["proofs"]), None if envs is None else set(envs)


def read_proof(suite: Path, entry: dict[str, Any]) -> bytes:
    """The compressed bytes of an entry's proof file, bounded."""
    path = proofs_dir(suite) / entry["file"]
    if entry["file"] != Path(entry["file"]).name or not entry["file"].endswith(SUFFIX):
        raise ProofError(f"the manifest names {entry['file'][:80]!r}, not a proof file name")
    if not path.is_file():
        raise ProofError("the proof file is missing")
    data = read_bounded(path, MAX_COMPRESSED, "the proof")
    if sha256_hex(data) != entry["proof_sha256"]:
        raise ProofError("its sha256 is not the manifest's: corrupted or replaced")
    return data
