"""Typed presets: one frozen dataclass per env, with validated ranges (reasoning-gym style).

A preset is built from keyword arguments or from a dict (``from_dict``); an unknown key is an
error naming the key (a misspelt knob never falls back silently to a default), and each
subclass checks its ranges in ``validate`` with a :class:`PresetError` naming the field.
``to_dict`` gives the plain JSON form recorded in a suite's manifest: lists for sequences,
unset optional knobs left out, so a typed preset records exactly the bytes its dict did.
A preset also reads like that dict (``preset["count"]``, ``dict(preset)``), for code that only
needs the values.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from ..core.errors import ArenaGenError

P = TypeVar("P", bound="Preset")


class PresetError(ArenaGenError, ValueError):
    """A preset has an unknown key or a value out of its range; the message names the key."""


@dataclasses.dataclass(frozen=True)
class Preset:
    """Base of the per-env preset dataclasses (see the module docstring)."""

    #: How many tasks the suite holds of this env.
    count: int
    #: Candidates sampled per task before the build gives up.
    max_attempts: int

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # sequences are stored as tuples (hashable, frozen)
            value = getattr(self, f.name)
            if isinstance(value, list):
                object.__setattr__(self, f.name, tuple(value))
        self.positive_int("count")
        self.positive_int("max_attempts")
        self.validate()

    def validate(self) -> None:
        """Check the env's own ranges (subclasses); raise :class:`PresetError`."""

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_dict(cls: type[P], data: Mapping[str, Any]) -> P:
        """Build from a dict; an unknown key raises, naming it (and the closest known key)."""
        known = [f.name for f in dataclasses.fields(cls)]
        for key in data:
            if key not in known:
                close = difflib.get_close_matches(str(key), known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise PresetError(f"{cls.__name__}: unknown key {key!r}{hint}; known keys: "
                                  f"{', '.join(known)}")
        try:
            return cls(**data)
        except TypeError as exc:  # a required knob is missing
            raise PresetError(f"{cls.__name__}: {exc}") from None

    @classmethod
    def coerce(cls: type[P], config: Preset | Mapping[str, Any]) -> P:
        """A preset of this class from a preset or its dict form."""
        if isinstance(config, cls):
            return config
        return cls.from_dict(dict(config))

    def replace(self: P, **changes: Any) -> P:
        """A copy with some knobs changed (validated again)."""
        return dataclasses.replace(self, **changes)

    # -- the JSON form --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The manifest form: field order, lists for sequences, unset optional knobs left out."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def keys(self) -> list[str]:
        return list(self.to_dict())

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)

    # -- range checks ---------------------------------------------------------------------------
    def _fail(self, name: str, message: str) -> PresetError:
        return PresetError(f"{type(self).__name__}.{name} = {getattr(self, name)!r}: {message}")

    def number(self, name: str, lo: float | None = None, hi: float | None = None, *,
               integer: bool = False) -> None:
        """``name`` is a number (an int if ``integer``) in ``[lo, hi]``."""
        value = getattr(self, name)
        kinds = (int,) if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise self._fail(name, "must be an integer" if integer else "must be a number")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self._fail(name, f"must be in [{lo if lo is not None else '-inf'}, "
                                   f"{hi if hi is not None else 'inf'}]")

    def positive_int(self, name: str, hi: int | None = None) -> None:
        self.number(name, 1, hi, integer=True)

    def probability(self, name: str) -> None:
        self.number(name, 0.0, 1.0)

    def sequence(self, name: str, *, integer: bool = False, lo: float | None = None,
                 hi: float | None = None) -> tuple[Any, ...]:
        """``name`` is a non-empty sequence of numbers in ``[lo, hi]``."""
        value = getattr(self, name)
        if not isinstance(value, tuple) or not value:
            raise self._fail(name, "must be a non-empty list")
        kinds = (int,) if integer else (int, float)
        for item in value:
            if isinstance(item, bool) or not isinstance(item, kinds):
                raise self._fail(name, "items must be integers" if integer
                                 else "items must be numbers")
            if (lo is not None and item < lo) or (hi is not None and item > hi):
                raise self._fail(name, f"items must be in [{lo}, {hi}]")
        return value
