"""Longest-first scheduling and the default job count: the bytes stay canonical whatever runs
the tasks and in whatever order they start."""

from __future__ import annotations

import os
import random

import pytest

from arena_gen.core import parallel
from arena_gen.core.suite_io import jsonl_text, manifest_text
from arena_gen.suite import build
from arena_gen.suite.build import Job, build_suite, schedule

ENVS = ["lights", "trading", "repo"]
COUNTS = {"lights": 5, "trading": 2, "repo": 2}


def _bytes(result: build.BuildResult) -> dict[str, bytes]:
    out = {env: jsonl_text(tasks).encode() for env, tasks in result.tasks.items()}
    out["manifest.json"] = manifest_text(result.manifest).encode()
    return out


@pytest.fixture(scope="module")
def serial() -> dict[str, bytes]:
    return _bytes(build_suite("lite", 7, ENVS, counts=COUNTS, jobs=1))


def test_schedule_starts_repo_then_the_longest_and_cached_last() -> None:
    jobs = [Job("lights", "challenge", 7, 0, 1, cost=0.8),
            Job("energy", "challenge", 7, 1, 1, cost=11.0),
            Job("repo", "challenge", 7, 0, 1, cost=0.0),
            Job("energy", "challenge", 7, 0, 1, cost=11.0),
            Job("repo", "challenge", 7, 1, 1, cost=46.0),
            Job("trading", "challenge", 7, 0, 1, cost=0.6)]
    order = [(j.env, j.index) for j in schedule(jobs)]
    assert order == [("repo", 1), ("energy", 0), ("energy", 1), ("lights", 0), ("trading", 0),
                     ("repo", 0)]


def test_expected_costs_put_challenge_lights_and_trading_ahead() -> None:
    assert build.expected_seconds("lights", "challenge") > build.expected_seconds(
        "trading", "challenge") > build.expected_seconds("energy", "challenge")
    assert build.expected_seconds("lights", "no-such-suite") == 1.0  # unlisted: 1 s


def test_jobs_one_and_two_give_the_same_bytes(serial: dict[str, bytes]) -> None:
    starts: list[str] = []
    parallel_build = build_suite("lite", 7, ENVS, counts=COUNTS, jobs=2, on_start=starts.append)
    assert _bytes(parallel_build) == serial
    assert starts[:2] == ["repo", "repo"]  # repo first
    assert sorted(starts) == sorted(e for e in ENVS for _ in range(COUNTS[e]))
    assert [t.id for t in parallel_build.tasks["lights"]] == [
        f"lights-lite-7-{i:04d}" for i in range(5)]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_shuffled_schedule_gives_the_same_bytes(serial: dict[str, bytes], seed: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def shuffled(jobs: list[Job]) -> list[Job]:
        out = list(jobs)
        random.Random(seed).shuffle(out)
        return out

    monkeypatch.setattr(build, "schedule", shuffled)
    seen: list[list[tuple[str, int]]] = []
    result = build_suite("lite", 7, ENVS, counts=COUNTS, jobs=2,
                         on_plan=lambda plan: seen.append([(j.env, j.index) for j in plan]))
    assert seen[0] == [(j.env, j.index) for j in shuffled(
        [Job(e, "lite", 7, i, 1) for e in ENVS for i in range(COUNTS[e])])]
    assert _bytes(result) == serial


def test_default_jobs_is_the_affinity_mask(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert parallel.default_jobs() == 3


def test_default_jobs_falls_back_to_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert parallel.default_jobs() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert parallel.default_jobs() == 6


def test_default_jobs_prefers_process_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "process_cpu_count", lambda: 4, raising=False)
    assert parallel.default_jobs() == 4


def test_map_unordered_starts_items_in_the_given_order() -> None:
    submitted: list[int] = []
    got = sorted(parallel.map_unordered(abs, [-3, 1, -2, 5], jobs=2,
                                        on_submit=submitted.append))
    assert submitted == [-3, 1, -2, 5]
    assert got == [1, 2, 3, 5]
