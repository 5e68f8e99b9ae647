"""Error types that name what broke, so a user can find the file, task and fact at fault."""

from __future__ import annotations

import re

#: Characters a terminal acts on rather than shows (C0 but newline and tab, DEL, C1, and the
#: bidirectional overrides that reorder what is shown): printed escaped, never raw.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: Characters of an id an error shows (a hostile id may be megabytes long).
ID_CHARS = 80
#: Characters of a whole error message shown.
MESSAGE_CHARS = 4000


def printable(text: str, limit: int) -> str:
    """``text`` safe to print: terminal control characters escaped (``\x1b`` shows as the four
    characters ``\x1b``) and, past ``limit`` characters, its middle cut with a count."""
    text = _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}...[{len(text) - 2 * half} characters cut]...{text[len(text) - half:]}"


def shown_id(value: object) -> str:
    """An id (a task's, from an untrusted file) as messages print it: escaped and bounded."""
    return printable(str(value), ID_CHARS)


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
            where.append(f"task {shown_id(task_id)}")
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
