"""Error types that name what broke, so a user can find the file, task and fact at fault."""

from __future__ import annotations


class ArenaGenError(Exception):
    """Base class for every error arena-gen raises on purpose."""


class RegistryError(ArenaGenError):
    """An env name is unknown, or registered twice."""


class SchemaError(ArenaGenError):
    """A JSON document does not match its schema; the message names file, line, task and path."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        task_id: str | None = None,
        json_path: str = "$",
    ) -> None:
        self.file = file
        self.line = line
        self.task_id = task_id
        self.json_path = json_path
        self.reason = message
        where = []
        if file is not None:
            where.append(f"{file}:{line}" if line is not None else file)
        if task_id is not None:
            where.append(f"task {task_id}")
        where.append(f"at {json_path}")
        super().__init__(f"{', '.join(where)}: {message}")


class PlanError(SchemaError):
    """A run directory's line the run never planned (a task, attempt, agent or mode outside
    its run.json, or a second line for one key): refused, never counted."""


class HashMismatchError(ArenaGenError):
    """A stored sha256 does not match the bytes it claims to cover (tampering or corruption)."""


class VerificationError(ArenaGenError):
    """A certificate does not hold: the verifier or a witness replay disagrees with the record."""


class GenerationError(ArenaGenError):
    """A sampler could not produce an acceptable task within its attempt limit."""
