"""Typed presets: one frozen dataclass per env, validated on construction, read like a dict.

Each knob is a :func:`knob` field with an inclusive range (and, for pairs, ``lo <= hi``). A
preset is built from a mapping by :meth:`Preset.of`, where a misspelt or missing key is an error
naming it (never a silent default). A preset is also a read-only ``Mapping``, and
:meth:`Preset.to_dict` gives exactly the plain dict the manifest records (pairs as lists), so
code reading ``config["horizon"]`` and the manifest bytes are unchanged.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from arena_gen.core.errors import ArenaGenError

P = TypeVar("P", bound="Preset")


class PresetError(ArenaGenError):
    """A preset with an unknown, missing, mistyped or out-of-range knob."""


def knob(lo: float | None = None, hi: float | None = None, *, kind: type = float) -> Any:
    """A preset field: its kind (``int``, ``float``, ``bool``, or ``tuple`` of ints for a
    ``[lo, hi]`` pair) and the inclusive range every value must lie in."""
    return dataclasses.field(metadata={"lo": lo, "hi": hi, "kind": kind})


def _check(name: str, value: Any, lo: float | None, hi: float | None, kind: type) -> None:
    if kind is bool:
        if not isinstance(value, bool):
            raise PresetError(f"preset knob {name!r} must be true or false, got {value!r}")
        return
    if kind is tuple:
        if (not isinstance(value, tuple) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise PresetError(f"preset knob {name!r} must be a [lo, hi] pair of whole numbers, "
                              f"got {value!r}")
        if value[0] > value[1]:
            raise PresetError(f"preset knob {name!r} has lo > hi: {list(value)}")
        values: tuple[Any, ...] = value
    else:
        allowed = (int,) if kind is int else (int, float)
        if isinstance(value, bool) or not isinstance(value, allowed):
            what = "a whole number" if kind is int else "a number"
            raise PresetError(f"preset knob {name!r} must be {what}, got {value!r}")
        values = (value,)
    for v in values:
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise PresetError(f"preset knob {name!r} = {v!r} is outside [{lo}, {hi}]")


@dataclasses.dataclass(frozen=True)
class Preset(Mapping[str, Any]):
    """Base of the typed presets (subclasses declare :func:`knob` fields in manifest order)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            meta = f.metadata
            value = getattr(self, f.name)
            if meta.get("kind") is tuple and isinstance(value, list):
                object.__setattr__(self, f.name, value := tuple(value))
            _check(f.name, value, meta.get("lo"), meta.get("hi"), meta.get("kind", float))
        self.validate()

    def validate(self) -> None:
        """Cross-knob rules of one env (e.g. ``n_min <= n_max``); raise :class:`PresetError`."""

    @classmethod
    def of(cls: type[P], data: Mapping[str, Any]) -> P:
        """The preset of ``data`` (a preset or a plain mapping), every key checked."""
        if isinstance(data, cls):
            return data
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = [k for k in data if k not in names]
        if unknown:
            close = difflib.get_close_matches(str(unknown[0]), names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise PresetError(f"unknown {cls.__name__} knob {unknown[0]!r}{hint}")
        missing = [n for n in names if n not in data]
        if missing:
            raise PresetError(f"{cls.__name__} is missing knob {missing[0]!r}")
        return cls(**{n: data[n] for n in names})

    def replace(self: P, **changes: Any) -> P:
        """A copy with some knobs changed (validated like any preset; a misspelt knob errors)."""
        return type(self).of({**self.to_dict(), **changes})

    def to_dict(self) -> dict[str, Any]:
        """The plain dict of the knobs, in field order (pairs as lists): what manifests record."""
        return {f.name: self[f.name] for f in dataclasses.fields(self)}

    # -- the read-only Mapping view -------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        value = getattr(self, key)
        return list(value) if isinstance(value, tuple) else value

    def __iter__(self) -> Iterator[str]:
        return iter(f.name for f in dataclasses.fields(self))

    def __len__(self) -> int:
        return len(dataclasses.fields(self))
