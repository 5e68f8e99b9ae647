"""Sealed suites: a secret seeds the tree, and a public copy carries commitments in place of
everything the agent must not see.

``build --secret FILE`` hangs a suite's seed tree under a key derived from the secret
(HMAC-SHA256 of the suite and seed, keyed with the secret stretched through scrypt), so nobody
can regenerate its worlds from the public ids and seed; the manifest records a commitment to the
secret, never the secret. Every derived value goes through one scrypt of the secret (128 MiB,
about a second of one core), so each guess at a secret costs an attacker that, however it is
checked (the commitment, a salt, or a rebuilt world against a public view); and a secret under
32 bytes, or an obviously weak one (one byte repeated, a short pattern repeated, fewer than 8
distinct bytes), is refused. ``seal`` writes a
public copy: each task's public fields as they are and, for each hidden part (params, world,
rules text, certificate), ``sha256(canonical JSON of the part || salt)`` with a 32-byte salt
derived from the secret and the task id. Revealing a part with its salt (or the secret, which
gives every salt) opens the commitment; the salts keep small worlds from being guessed.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_gen.core import registry
from arena_gen.core.bounded_io import iter_lines, read_bounded
from arena_gen.core.canon import canonical_bytes, sha256_of
from arena_gen.core.errors import ArenaGenError, HashMismatchError, SchemaError
from arena_gen.core.seeds import suite_code
from arena_gen.core.suite_io import (
    ENV_NAME,
    MANIFEST,
    SEALED_PRIVATE,
    SEALED_PUBLIC,
    ManifestRead,
    Suite,
    load_manifest,
    read_suite,
    strict_doc,
    suite_hash,
    write_suite,
)
from arena_gen.core.task import Task
from arena_gen.suite import catalog
from arena_gen.suite.attempts import task_id
from arena_gen.suite.catalog import SUITES

#: The commitment scheme a sealed manifest names (a new scheme gets a new name). Version 2
#: keys every HMAC with the secret stretched through scrypt (:data:`KDF`); version 1 keyed them
#: with the secret itself (one fast HMAC per guess) and is refused.
SCHEME = "arena-gen-sealed-2"
OLD_SCHEMES = ("arena-gen-sealed-1",)
#: scrypt's cost parameters (``hashlib.scrypt``): n=2**17, r=8 is 128 MiB of memory and about
#: a second of one core per secret tried (0.5 s on a quiet 2020s desktop core), the price of
#: every offline guess; p=1 keeps it one core. Part of the scheme, recorded in the manifest.
KDF: dict[str, Any] = {"name": "scrypt", "n": 2**17, "r": 8, "p": 1}
#: Bytes of scrypt's working memory allowed: its need (128 * r * n) with room to spare.
_MAXMEM = 256 * 1024 * 1024
PRIVATE, PUBLIC = SEALED_PRIVATE, SEALED_PUBLIC
#: Task fields a public copy keeps as they are (an agent sees ``public``; the rest names the
#: task and what success means).
PUBLIC_FIELDS = ("schema_version", "id", "env", "env_version", "suite", "seed_path", "budget",
                 "public", "rubric")
#: Certificate facts a public copy keeps: solvable, how it was proved and the exact minimum.
PUBLIC_CERTIFICATE = ("solvable", "method", "min_steps", "verifier_version")
#: Task fields a public copy replaces by commitments (the certificate whole: its witness and
#: facts describe the world).
HIDDEN = ("params", "world", "rules_text", "certificate")
#: A secret shorter than this is refused (32 random bytes, or 64 hex digits, is what the docs
#: make; a passphrase that short is guessable even at a second per guess).
MIN_SECRET_BYTES = 32
#: Fewest distinct byte values a secret may hold (random hex of 32 bytes has 16).
MIN_DISTINCT_BYTES = 8
#: Longest repeated pattern refused (``abcd`` x 8, ``0123456789abcdef`` x 2).
MAX_PERIOD = 16
MAX_SECRET_BYTES = 64 * 1024


@dataclass(frozen=True)
class Secret:
    """The bytes of a secret file; every key, salt and commitment is an HMAC of them."""

    data: bytes = field(repr=False)

    def __post_init__(self) -> None:
        weak = weakness(self.data)
        if weak is not None:
            raise ArenaGenError(f"a weak secret: {weak}; make one with: python3 -c "
                                f"\"import secrets; print(secrets.token_hex(32))\" > FILE")

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Secret:
        """Read a secret file (its raw bytes, a trailing newline included)."""
        try:
            return cls(read_bounded(Path(path), MAX_SECRET_BYTES, what="secret"))
        except OSError as exc:
            raise ArenaGenError(f"{path}: cannot read the secret: {exc.strerror or exc}") from None

    @property
    def key(self) -> bytes:
        """The secret stretched through scrypt (:data:`KDF`): the key of every HMAC below."""
        return stretch(self.data, int(KDF["n"]), int(KDF["r"]), int(KDF["p"]))

    def _mac(self, *parts: str) -> bytes:
        message = "\0".join((SCHEME, *parts)).encode("utf-8")
        return hmac.new(self.key, message, hashlib.sha256).digest()

    @property
    def commitment(self) -> str:
        """What a manifest records of the secret: revealing the secret opens it."""
        return self._mac("secret").hex()

    def tree_key(self, suite: str, seed: int) -> bytes:
        """The key of the sealed seed tree of ``suite`` built from ``seed``."""
        return self._mac("seed-tree", suite, str(int(seed)))

    def salt(self, task: str, part: str) -> bytes:
        """The salt of one hidden part of one task (publish it to open that commitment)."""
        return self._mac("salt", task, part)

    def manifest_entry(self, role: str) -> dict[str, Any]:
        """The manifest's ``sealed`` record of a private suite or its public copy."""
        return {"scheme": SCHEME, "role": role, "secret_commitment": self.commitment,
                "kdf": dict(KDF)}


def weakness(data: bytes) -> str | None:
    """Why a secret is too weak to seal with (None: long and varied enough): fewer than
    :data:`MIN_SECRET_BYTES` bytes, one byte or a short pattern repeated, or too few distinct
    bytes. A trailing newline is ignored by the pattern checks (never by the derivations)."""
    if len(data) < MIN_SECRET_BYTES:
        return f"it holds {len(data)} bytes; a secret must hold at least {MIN_SECRET_BYTES}"
    body = data.rstrip(b"\r\n")
    if len(set(body)) <= 1:
        return "every byte is the same"
    for period in range(2, MAX_PERIOD + 1):
        if len(body) >= 2 * period and body == (body[:period] * (len(body) // period + 1)
                                                )[:len(body)]:
            return f"a pattern of {period} bytes repeated"
    if len(set(body)) < MIN_DISTINCT_BYTES:
        return (f"only {len(set(body))} distinct byte values (at least {MIN_DISTINCT_BYTES} "
                f"expected of a random secret)")
    return None


@functools.lru_cache(maxsize=16)
def stretch(data: bytes, n: int, r: int, p: int) -> bytes:
    """scrypt of a secret under the scheme's salt: about a second per call, so each process
    stretches a secret once (cached)."""
    return hashlib.scrypt(data, salt=SCHEME.encode("utf-8"), n=n, r=r, p=p, maxmem=_MAXMEM,
                          dklen=32)


def commit(value: Any, salt: bytes) -> str:
    """``sha256(canonical JSON of value || salt)``, hex."""
    return hashlib.sha256(canonical_bytes(value) + salt).hexdigest()


def sealed_entry(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest's ``sealed`` record (None: a plain suite)."""
    entry = manifest.get("sealed")
    return entry if isinstance(entry, dict) else None


def check_secret(manifest: dict[str, Any], secret: Secret, where: object) -> None:
    """Refuse a secret that is not the one a sealed private suite was built with."""
    entry = sealed_entry(manifest)
    if entry is None:
        raise ArenaGenError(f"{where}: not a sealed suite (built without --secret), so "
                            f"--secret does not apply")
    if entry.get("scheme") in OLD_SCHEMES:
        raise ArenaGenError(f"{where}: sealed with {entry.get('scheme')}, whose commitment is "
                            f"one fast HMAC of the secret (guessable offline); this arena-gen "
                            f"derives from a secret only through {SCHEME} (scrypt): seal a new "
                            f"suite with a new secret of at least {MIN_SECRET_BYTES} bytes")
    if entry.get("scheme") != SCHEME or entry.get("kdf") != KDF:
        raise ArenaGenError(f"{where}: the manifest's sealed.scheme/kdf are not {SCHEME} with "
                            f"{KDF} (edited, or written by another arena-gen)")
    if entry.get("role") != PRIVATE:
        raise ArenaGenError(f"{where}: the public copy of a sealed suite; this needs the "
                            f"private suite")
    if entry.get("secret_commitment") != secret.commitment:
        raise ArenaGenError(f"{where}: the secret is not the one this suite was sealed with "
                            f"(the manifest commits to {str(entry.get('secret_commitment'))[:12]}"
                            f"..., this secret to {secret.commitment[:12]}...)")


def tree_key_for(manifest: dict[str, Any], secret: Secret | None, where: object) -> bytes | None:
    """The seed-tree key a suite's tasks re-derive from: None for a plain suite; a sealed one
    needs its own secret."""
    if secret is None:
        if sealed_entry(manifest) is not None:
            raise ArenaGenError(f"{where}: a sealed suite; its worlds re-derive only from its "
                                f"secret: pass --secret FILE")
        return None
    check_secret(manifest, secret, where)
    return secret.tree_key(str(manifest["suite"]), int(manifest["seed"]))


@dataclass(frozen=True)
class PublicTask:
    """One line of a public copy (what ``write_suite`` writes of it is :meth:`to_dict`)."""

    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.data

    @property
    def id(self) -> str:
        return str(self.data["id"])


def public_task(task: Task, secret: Secret) -> PublicTask:
    """A task's public line: public fields, the proof's public facts, hidden parts committed."""
    body = task.body()
    line: dict[str, Any] = {name: body[name] for name in PUBLIC_FIELDS}
    line["certificate"] = {k: body["certificate"][k] for k in PUBLIC_CERTIFICATE}
    line["commitments"] = {part: commit(body[part], secret.salt(task.id, part))
                           for part in HIDDEN}
    line["sha256"] = sha256_of(line)
    return PublicTask(line)


def public_copy(suite: Suite, secret: Secret) -> tuple[dict[str, Any], dict[str, list[PublicTask]]]:
    """The public copy of a sealed private suite: its manifest and lines per env."""
    check_secret(suite.manifest, secret, suite.path)
    if suite.partial:
        raise ArenaGenError(f"{suite.path}: only part of the suite was read; seal needs it all")
    lines = {env: [public_task(t, secret) for t in tasks] for env, tasks in suite.tasks.items()}
    hashes = {line.id: str(line.data["sha256"]) for env in lines.values() for line in env}
    manifest = dict(suite.manifest)
    manifest["tasks"] = dict(sorted(hashes.items()))
    manifest["suite_sha256"] = suite_hash(hashes)
    manifest["sealed"] = secret.manifest_entry(PUBLIC)
    return manifest, lines


def write_public(private: str | os.PathLike[str], secret: Secret, out: str | os.PathLike[str],
                 *, force: bool = False) -> Path:
    """Write the public copy of the sealed suite at ``private`` into ``out`` (checked as
    ``verify`` checks it before it is moved into place)."""
    suite = read_suite(private)
    manifest, lines = public_copy(suite, secret)

    def check(folder: Path) -> None:
        problems = public_problems(folder, counts=False)
        if problems:
            raise ArenaGenError(f"the public copy would not verify: {problems[0]}")

    return write_suite(out, manifest, lines, force=force, check=check)


@dataclass
class PublicSuite:
    """A public copy read back: its manifest and lines per env, every hash checked."""

    path: Path
    manifest: dict[str, Any]
    tasks: dict[str, list[dict[str, Any]]]


def read_public(path: str | os.PathLike[str], loaded: ManifestRead | None = None) -> PublicSuite:
    """Read a public copy; raise naming file, line and task on a schema or hash problem (pass
    ``loaded`` when its manifest was already read, so it is read once)."""
    read = loaded if loaded is not None else load_manifest(path)
    root, manifest = read.root, read.manifest
    entry = sealed_entry(manifest)
    if entry is None or entry.get("role") != PUBLIC:
        raise ArenaGenError(f"{root}: not the public copy of a sealed suite")
    listed: dict[str, str] = manifest["tasks"]
    tasks: dict[str, list[dict[str, Any]]] = {}
    seen: set[str] = set()
    for env in sorted(manifest["counts"]):
        file = root / f"{env}.jsonl"
        if not ENV_NAME.fullmatch(env) or not file.is_file():
            raise ArenaGenError(f"{root}: manifest lists env {env[:80]!r} but {env}.jsonl is "
                                f"missing")
        tasks[env] = []
        for lineno, raw in iter_lines(file, what="task file"):
            obj = strict_doc(raw, "sealed_task", file=file, line=lineno)
            digest = sha256_of({k: v for k, v in obj.items() if k != "sha256"})
            if obj["sha256"] != digest:
                raise HashMismatchError(f"{file}:{lineno}: task {obj['id']}: sha256 mismatch "
                                        f"(content hashes to {digest[:12]}...)")
            if obj["env"] != env:
                raise SchemaError(f"task of env {obj['env']!r} in {file.name}", file=str(file),
                                  line=lineno, task_id=obj["id"], json_path="$.env")
            if listed.get(obj["id"]) != digest:
                raise HashMismatchError(f"{file}:{lineno}: task {obj['id']} is not listed with "
                                        f"this sha256 in the manifest")
            if obj["id"] in seen:
                raise ArenaGenError(f"{file}:{lineno}: duplicate task id {obj['id']}")
            seen.add(obj["id"])
            tasks[env].append(obj)
        if len(tasks[env]) != manifest["counts"][env]:
            raise ArenaGenError(f"{file}: manifest counts {manifest['counts'][env]} {env} tasks, "
                                f"file has {len(tasks[env])}")
    missing = sorted(set(listed) - seen)
    if missing:
        raise HashMismatchError(f"{root / MANIFEST}: lists tasks not in any file: {missing[:5]}")
    if suite_hash(listed) != manifest["suite_sha256"]:
        raise HashMismatchError(f"{root / MANIFEST}: suite_sha256 does not match its task list")
    return PublicSuite(root, manifest, tasks)


def public_problems(path: str | os.PathLike[str] | PublicSuite, *,
                    counts: bool = True) -> list[str]:
    """What is wrong with a public copy beyond its schemas and hashes (which raise): ids and
    lines that do not follow from the seed paths, fields the manifest disagrees with, counts
    other than its preset's, and a budget or public view (the intro the agent reads) other
    than the env's sampler gives for the line's public facts. Without a signature this is all
    an unsigned copy can be held to: the hidden parts are commitments. ``counts=False`` leaves
    the preset's counts to the private suite's own verify (``seal`` copies what it is given)."""
    suite = path if isinstance(path, PublicSuite) else read_public(path)
    manifest = suite.manifest
    problems = preset_count_problems(manifest) if counts else []
    for lines in suite.tasks.values():
        problems += [p for line in lines if (p := public_view_problem(line)) is not None]
    for env, lines in sorted(suite.tasks.items()):
        for n, line in enumerate(lines):
            seeds = line["seed_path"]
            expected = task_id(env, line["suite"], seeds[0], seeds[3])
            if line["id"] != expected:
                problems.append(f"{line['id']}: not the id its seed path gives ({expected})")
            if seeds[3] != n:
                problems.append(f"{env}.jsonl: line {n + 1} holds index {seeds[3]}; lines are "
                                f"in index order from 0")
            if line["suite"] != manifest["suite"] or seeds[0] != manifest["seed"]:
                problems.append(f"{line['id']}: suite or seed differ from the manifest's")
            if line["env_version"] != (manifest.get("env_versions") or {}).get(env):
                problems.append(f"{line['id']}: env_version differs from the manifest's")
            elif seeds[1:3] != _codes(line["suite"], env, line["env_version"]):
                problems.append(f"{line['id']}: seed_path {seeds} does not name suite "
                                f"{line['suite']} and env {env}")
    return problems


def preset_count_problems(manifest: dict[str, Any]) -> list[str]:
    """A preset suite holds its preset's count of each env's tasks (a public copy's manifest
    can be rewritten with its lines, so the count is taken from the preset, never from it)."""
    name = manifest.get("suite")
    if name not in SUITES:
        return []
    problems = []
    for env, count in sorted(manifest["counts"].items()):
        try:
            want = catalog.preset_count(name, env, (manifest.get("env_versions") or {}).get(env))
        except (ArenaGenError, TypeError, ValueError) as exc:
            problems.append(f"manifest counts.{env}: no {name} preset to compare with ({exc})")
            continue
        if count != want:
            problems.append(f"manifest counts.{env} is {count}, the {name} preset's is {want}")
    return problems


def public_view_problem(line: dict[str, Any]) -> str | None:
    """Whether a public line's ``public`` and ``budget`` are the ones its env's sampler gives
    for its public facts (and, in a preset suite, the preset's budget): an injected sentence
    in the intro or an edited budget is named."""
    task, env, version = line["id"], line["env"], line["env_version"]
    try:
        again = registry.get(env, version).load("public_again")
        config = catalog.preset(line["suite"], env, version) if line["suite"] in SUITES else None
        public, budget = again(line["public"], line["budget"], config)
    except (ArenaGenError, KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return f"{task}: its public view cannot be re-derived from its public facts ({exc})"
    if budget != line["budget"]:
        return f"{task}: budget {line['budget']} is not the {budget} its env and preset give"
    if canonical_bytes(public) != canonical_bytes(line["public"]):
        keys = sorted(k for k in set(public) | set(line["public"])
                      if public.get(k) != line["public"].get(k))
        return (f"{task}: public.{keys[0] if keys else 'intro'} is not what {env} "
                f"v{version}'s sampler writes for its public facts (edited after sealing?)")
    return None


def _codes(suite: str, env: str, version: int) -> list[int] | None:
    """The suite and env codes a seed path of ``suite`` and ``env`` starts with after the seed
    (None when either is unknown)."""
    try:
        return [suite_code(suite), registry.get(env, version).code]
    except ArenaGenError:
        return None


def commitment_problems(private: Suite, public: str | os.PathLike[str] | PublicSuite,
                        secret: Secret) -> list[str]:
    """Check a private suite against a public copy: every public line must be the one the
    private task gives and every commitment must open to the private task's hidden part."""
    manifest, expected = public_copy(private, secret)
    published = public if isinstance(public, PublicSuite) else read_public(public)
    problems = []
    got = {line["id"]: line for lines in published.tasks.values() for line in lines}
    for _, lines in sorted(expected.items()):
        for line in lines:
            have = got.pop(line.id, None)
            if have is None:
                problems.append(f"{line.id}: not in the public copy")
                continue
            problems += [f"{line.id}: the commitment to its {part} does not open to the "
                         f"private suite's {part}" for part in HIDDEN
                         if have["commitments"].get(part) != line.data["commitments"][part]]
            problems += [f"{line.id}: public field {name} differs from the private suite's"
                         for name in sorted(set(have) | set(line.data))
                         if name not in ("commitments", "sha256")
                         and have.get(name) != line.data.get(name)]
    problems += [f"{extra}: in the public copy but not in the private suite"
                 for extra in sorted(got)]
    same = {"tasks", "suite_sha256"}  # compared through the lines above
    problems += [f"manifest {key} differs between the public copy and the private suite"
                 for key in sorted(set(manifest) | set(published.manifest))
                 if key not in same and manifest.get(key) != published.manifest.get(key)]
    return problems
