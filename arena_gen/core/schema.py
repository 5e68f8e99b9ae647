"""One loader for every JSON document arena-gen reads: tasks, manifests, trajectories, findings.

Failures raise :class:`SchemaError` naming the file, line, task id and JSON path, because task
files are untrusted input and a user must be able to find the broken fact at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from arena_gen.core.bounded_io import iter_lines, read_bounded
from arena_gen.core.errors import SchemaError
from arena_gen.core.paths import schema_dir

KINDS = ("task", "manifest", "trajectory", "findings", "run", "summary", "signature",
         "sealed_task")


def inline_defs(node: Any, defs: dict[str, Any], inside: tuple[str, ...] = ()) -> Any:
    """Replace each non-recursive ``{"$ref": "#/$defs/x"}`` by its definition: jsonschema
    resolves a ``$ref`` on every use, which halves the speed of reading a repo task."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if len(node) == 1 and isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in defs and name not in inside:  # recursive references stay references
                return inline_defs(defs[name], defs, (*inside, name))
        return {k: inline_defs(v, defs, inside) for k, v in node.items()}
    if isinstance(node, list):
        return [inline_defs(v, defs, inside) for v in node]
    return node


#: Errors of one ``anyOf``/``oneOf`` branch kept as context. jsonschema collects them all, so a
#: hostile 100,000-item list under an ``anyOf`` took 10 s to reject; its first few suffice.
BRANCH_ERRORS = 20
#: Errors of one document the best match is chosen from (a 100,000-item list of wrong items
#: yields 100,000 errors; the first hundred name the problem as well).
MAX_ERRORS = 100


def _short(instance: Any) -> str:
    text = repr(instance)
    return text if len(text) <= 200 else text[:200] + "..."


def _branch_errors(validator: Any, instance: Any, subschema: Any, index: int) -> list[Any]:
    return list(islice(validator.descend(instance, subschema, schema_path=index),
                       BRANCH_ERRORS))


def _any_of(validator: Any, any_of: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``anyOf`` with bounded context (the stock keyword's semantics otherwise)."""
    errors: list[Any] = []
    for index, subschema in enumerate(any_of):
        branch = _branch_errors(validator, instance, subschema, index)
        if not branch:
            return
        errors.extend(branch)
    yield ValidationError(f"{_short(instance)} is not valid under any of the given schemas",
                          context=errors)


def _one_of(validator: Any, one_of: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``oneOf`` with bounded context (the stock keyword's semantics otherwise)."""
    errors: list[Any] = []
    valid = []
    for index, subschema in enumerate(one_of):
        branch = _branch_errors(validator, instance, subschema, index)
        if not branch:
            valid.append(subschema)
            if len(valid) > 1:
                yield ValidationError(f"{_short(instance)} is valid under more than one of the "
                                      f"given schemas")
                return
        errors.extend(branch)
    if not valid:
        yield ValidationError(f"{_short(instance)} is not valid under any of the given schemas",
                              context=errors)


_Validator = validators.extend(Draft202012Validator, {"anyOf": _any_of, "oneOf": _one_of})


@cache
def validator(name: str) -> Any:
    """Return a cached validator for ``schemas/<name>.schema.json``."""
    path = schema_dir() / f"{name}.schema.json"
    if not path.is_file():
        raise SchemaError(f"no schema named {name!r}", file=str(path))
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return _Validator(inline_defs(schema, schema.get("$defs", {})))


def _join(prefix: str, path: str) -> str:
    return prefix + path[1:] if path.startswith("$") else f"{prefix}.{path}"


def validate(
    instance: Any,
    name: str,
    *,
    file: str | None = None,
    line: int | None = None,
    task_id: str | None = None,
    prefix: str = "$",
) -> None:
    """Validate a document against a named schema; raise SchemaError on the best match."""
    error = best_match(islice(validator(name).iter_errors(instance), MAX_ERRORS))
    if error is not None:
        raise SchemaError(error.message, file=file, line=line, task_id=task_id,
                          json_path=_join(prefix, error.json_path))


def validate_task(obj: Any, *, file: str | None = None, line: int | None = None,
                  kind: str = "task") -> None:
    """Validate a task envelope (``sealed_task``: a public copy's line), then its env's
    ``world`` and ``public`` sub-schemas (those it holds)."""
    task_id = obj.get("id") if isinstance(obj, dict) and isinstance(obj.get("id"), str) else None
    validate(obj, kind, file=file, line=line, task_id=task_id)
    env = obj["env"]
    for part in ("world", "public") if kind == "task" else ("public",):
        sub = f"envs/{env}.{part}"
        if (schema_dir() / f"{sub}.schema.json").is_file():
            validate(obj[part], sub, file=file, line=line, task_id=task_id, prefix=f"$.{part}")


def validate_doc(obj: Any, kind: str, *, file: str | None = None, line: int | None = None) -> None:
    """Validate a document of one of :data:`KINDS`."""
    if kind in ("task", "sealed_task"):
        validate_task(obj, file=file, line=line, kind=kind)
    else:
        task_id = obj.get("task_id") if isinstance(obj, dict) else None
        validate(obj, kind, file=file, line=line,
                 task_id=task_id if isinstance(task_id, str) else None)


#: Deepest nesting accepted in any document we read (tasks nest a few dozen levels at most).
MAX_DEPTH = 100
#: Most items in one list or object: arena-gen's own documents stay far below (a budget of
#: 1,000 turns), and validating a hostile 100,000-item list took seconds.
MAX_ITEMS = 50_000


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (numbers must be finite)")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # 1e400: past float range, not a number
        raise ValueError(f"{text[:40]} is out of float range (numbers must be finite)")
    return value


def _depth(obj: Any) -> int:
    """Nesting depth of a decoded document, without recursion (MAX_DEPTH + 1 when too deep);
    a container of more than MAX_ITEMS items raises SchemaError (the caller names the file)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        if isinstance(node, dict | list):
            if len(node) > MAX_ITEMS:
                raise SchemaError(f"refused: a list or object of {len(node)} items (at most "
                                  f"{MAX_ITEMS})")
            children = node.values() if isinstance(node, dict) else node
            stack.extend((v, depth + 1) for v in children)
    return deepest


def _lone_surrogate(obj: Any) -> bool:
    """Whether any string (key or value) holds a lone UTF-16 surrogate (``"\\ud800"``): no
    UTF-8 file can hold one, and hashing such a task raised UnicodeEncodeError."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def loads(text: str | bytes, *, file: str | None = None, line: int | None = None) -> Any:
    """Decode one untrusted JSON document, or raise SchemaError naming file and line: invalid
    UTF-8, NaN/Infinity, integers past Python's digit limit and absurd nesting included."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        obj = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except UnicodeDecodeError as exc:
        raise SchemaError(f"not UTF-8 (byte {exc.start})", file=file, line=line) from None
    except json.JSONDecodeError as exc:
        raise SchemaError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=file,
                          line=line if line is not None else exc.lineno) from None
    except RecursionError:
        raise SchemaError(f"JSON nested deeper than {MAX_DEPTH} levels", file=file,
                          line=line) from None
    except ValueError as exc:  # NaN / Infinity, or an integer with too many digits
        raise SchemaError(f"invalid JSON: {str(exc)[:80]}", file=file, line=line) from None
    try:
        too_deep = _depth(obj) > MAX_DEPTH
    except SchemaError as exc:
        raise SchemaError(exc.reason, file=file, line=line) from None
    if too_deep:
        raise SchemaError(f"JSON nested deeper than {MAX_DEPTH} levels", file=file, line=line)
    if _ESCAPED_SURROGATE.search(text) and _lone_surrogate(obj):  # text is str by now
        raise SchemaError("refused: a string holding a lone UTF-16 surrogate (not Unicode "
                          "text)", file=file, line=line)
    return obj


def read_json(path: Path, kind: str) -> Any:
    """Read and validate one JSON document."""
    try:
        data = read_bounded(path, what=kind)
    except OSError as exc:
        raise SchemaError(f"cannot read: {exc.strerror}", file=str(path)) from None
    obj = loads(data, file=str(path))
    validate_doc(obj, kind, file=str(path))
    return obj


def read_jsonl(path: Path, kind: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, document)`` for each non-blank line, each validated; the file is
    read through :func:`~arena_gen.core.bounded_io.iter_lines` (regular, lines and size capped)."""
    for lineno, raw in iter_lines(path, what=f"{kind} file"):
        if not raw.strip():
            continue
        obj = loads(raw, file=str(path), line=lineno)
        validate_doc(obj, kind, file=str(path), line=lineno)
        yield lineno, obj
