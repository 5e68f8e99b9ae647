"""Typed task records: Task, Certificate and RubricItem, with a lossless JSON round-trip."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core.canon import (
    canonical_json,
    canonical_members,
    joined_members,
    sha256_hex,
    sha256_of,
)
from arena_gen.core.errors import HashMismatchError

SCHEMA_VERSION = 1

METHODS = ("bfs", "sat-bmc", "smt-bmc", "lp", "oracle")

#: The certificate facts a ladder climb produces (the ladder, and the per-task resistance record
#: built from it): attached after the probes are drawn, so never part of their key.
CLIMB_FACTS = ("ladder", "resistance")


@dataclass(frozen=True)
class RubricItem:
    """One gradeable fact about an episode's outcome, e.g. ``all_on``."""

    id: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RubricItem:
        return cls(id=data["id"], text=data["text"])


@dataclass
class Certificate:
    """The verifier's proof record: solvable, exact minimum, witness and method facts."""

    solvable: bool
    method: str
    min_steps: int | None
    witness: list[str]
    verifier_version: int
    seconds: float | None
    facts: dict[str, Any] = field(default_factory=dict)

    _FIELDS = ("solvable", "method", "min_steps", "witness", "verifier_version", "seconds")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.facts)
        out.update({
            "solvable": self.solvable,
            "method": self.method,
            "min_steps": self.min_steps,
            "witness": list(self.witness),
            "verifier_version": self.verifier_version,
            "seconds": self.seconds,
        })
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Certificate:
        facts = {k: v for k, v in data.items() if k not in cls._FIELDS}
        return cls(
            solvable=data["solvable"],
            method=data["method"],
            min_steps=data["min_steps"],
            witness=list(data["witness"]),
            verifier_version=data["verifier_version"],
            seconds=data["seconds"],
            facts=facts,
        )


@dataclass
class Task:
    """One frozen benchmark task: hidden world, public view, rubric and its certificate."""

    id: str
    env: str
    env_version: int
    suite: str
    seed_path: list[int]
    params: dict[str, Any]
    budget: int
    public: dict[str, Any]
    world: dict[str, Any]
    rules_text: str
    rubric: list[RubricItem]
    certificate: Certificate
    schema_version: int = SCHEMA_VERSION
    #: The probe key (:meth:`digests`) worked out when the task was read with its hash checked,
    #: from the same serialisation (None otherwise); never copied by ``dataclasses.replace``.
    #: Only climb facts are edited in place after a read, and the key leaves them out.
    read_probe_key: str | None = field(default=None, init=False, repr=False, compare=False)

    def body(self) -> dict[str, Any]:
        """Everything but the hash: what ``sha256`` covers (a deep copy, safe to mutate)."""
        return copy.deepcopy(self._body_view())

    def _body_view(self) -> dict[str, Any]:
        """The body sharing this task's objects: hashing reads it and needs no copy."""
        return {
            "schema_version": self.schema_version,
            "id": self.id,
            "env": self.env,
            "env_version": self.env_version,
            "suite": self.suite,
            "seed_path": list(self.seed_path),
            "params": self.params,
            "budget": self.budget,
            "public": self.public,
            "world": self.world,
            "rules_text": self.rules_text,
            "rubric": [item.to_dict() for item in self.rubric],
            "certificate": self.certificate.to_dict(),
        }

    @property
    def sha256(self) -> str:
        """Recomputed on every access (a Task is mutable), so callers hash once and keep it."""
        return sha256_of(self._body_view())

    def digests(self) -> tuple[str, str]:
        """:attr:`sha256` and the probe key (the sha256 of the task without its climb facts
        and with no verifier seconds: :func:`~arena_gen.core.probe_ask.probe_key`), serialising
        the members both share once."""
        view = self._body_view()
        members = canonical_members(view)
        digest = sha256_hex(joined_members(members))
        cert = view["certificate"]
        if cert["seconds"] is None and not any(k in cert for k in CLIMB_FACTS):
            return digest, digest
        members["certificate"] = canonical_json(
            {**{k: v for k, v in cert.items() if k not in CLIMB_FACTS}, "seconds": None})
        return digest, sha256_hex(joined_members(members))

    def to_dict(self) -> dict[str, Any]:
        out = self.body()
        out["sha256"] = self.sha256
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, check_hash: bool = True) -> Task:
        """Build a Task from its JSON form; with ``check_hash`` a stale sha256 raises."""
        task = cls(
            id=data["id"],
            env=data["env"],
            env_version=data["env_version"],
            suite=data["suite"],
            seed_path=list(data["seed_path"]),
            params=data["params"],
            budget=data["budget"],
            public=data["public"],
            world=data["world"],
            rules_text=data["rules_text"],
            rubric=[RubricItem.from_dict(r) for r in data["rubric"]],
            certificate=Certificate.from_dict(data["certificate"]),
            schema_version=data.get("schema_version", SCHEMA_VERSION),
        )
        if check_hash and "sha256" in data:
            digest, key = task.digests()
            if data["sha256"] != digest:
                raise HashMismatchError(f"task {task.id}: sha256 mismatch (stored "
                                        f"{data['sha256'][:12]}..., content hashes to "
                                        f"{digest[:12]}...)")
            task.read_probe_key = key
        return task


@dataclass
class Draft:
    """A sampled world before verification: everything of a Task but its id and certificate."""

    params: dict[str, Any]
    budget: int
    public: dict[str, Any]
    world: dict[str, Any]
    rules_text: str
    rubric: list[RubricItem]
