"""Bounded mutation fuzzing of every input surface (#16): damaged suites, manifests, released
files, run directories, findings and rubrics, CLI paths and suite signatures never raise
anything but the project's error. Each surface draws 40 seeded cases (derandomized, ~10 s in
all); the long run, 10,000 cases per surface, is ``benchmarks/bench_fuzz.py``."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path

import pytest
from fuzz_surfaces import RELEASED_FILES, SURFACES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CASES = 40
NEEDS_RELEASED = {"importers (parse)", "importers (parse + verify)"}


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_no_input_escapes_the_project_error(surface: str) -> None:
    if surface in NEEDS_RELEASED and not all(p.is_file() for p in RELEASED_FILES.values()):
        pytest.skip("../shared/reference-data is absent")
    outcomes: list[str] = []

    @settings(max_examples=CASES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(min_value=0, max_value=2**32 - 1))
    def case(seed: int) -> None:
        work = Path(tempfile.mkdtemp(prefix="fuzz-"))
        try:
            outcomes.append(SURFACES[surface](work, random.Random(seed)))
        finally:
            shutil.rmtree(work, ignore_errors=True)

    case()
    assert set(outcomes) <= {"ok", "error"} and "error" in outcomes
