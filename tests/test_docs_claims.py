"""Statements in the README and docs that can be derived from the released suites, derived:
a rebuilt suite that changes a figure fails here until the sentence is updated."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from arena_gen.core import registry
from arena_gen.core.calibration import inductive_rungs, model_free_rungs
from arena_gen.core.suite_io import Suite, resolve_suite
from arena_gen.core.suite_io import read_suite as _read

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
ENVS = ("lights", "trading", "energy", "repo")


@functools.cache
def read_suite(path: Path) -> Suite:
    """Each released suite read once for the whole module."""
    return _read(path)


def _readme_ladder() -> dict[tuple[str, str], list[int]]:
    """The README's ladder table: (suite, rung label) -> the four envs' percentages."""
    head = "| suite | rung | lights | trading | energy | repo |"
    assert head in README, "the README's ladder table header moved"
    table = README.split(head, 1)[1].split("\n\n", 1)[0]
    out = {}
    for row in table.strip().splitlines()[1:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[1].startswith(PRICE_ROW):
            continue
        out[(cells[0], cells[1])] = [int(c.rstrip(" %")) for c in cells[2:]]
    return out


PRICE_ROW = "price of discovery"


def _readme_prices() -> dict[str, list[str]]:
    """The ladder table's price rows: suite -> the four envs' cells as written."""
    table = README.split("| suite | rung | lights | trading | energy | repo |", 1)[1]
    table = table.split("\n\n", 1)[0]
    return {cells[0]: cells[2:] for row in table.strip().splitlines()[1:]
            if (cells := [c.strip() for c in row.strip("|").split("|")])[1].startswith(PRICE_ROW)}


@pytest.mark.parametrize("suite", ["lite", "challenge", "challenge-moderate"])
def test_readme_price_of_discovery_row_is_the_certificates(suite: str) -> None:
    """Issue 39: the best inductive rung's and the planner's price, from the certified ladders
    the way ``bench_validity.py --prices`` computes it; fixed-horizon envs say so."""
    from arena_gen.scoring.induction_efficiency import (
        price_text,
        reference_of,
        reference_text,
        rung_prices,
    )

    read = read_suite(resolve_suite(suite))
    rates = read.manifest["calibration"]
    want = []
    for env in ENVS:
        tasks = read.tasks[env]
        refs = {t.id: reference_of(t) for t in tasks}
        if reference_text(r.kind for r in refs.values() if r is not None) is None:
            want.append("fixed horizon")
            continue
        prices = rung_prices([(t.certificate.facts["ladder"], refs[t.id]) for t in tasks])
        rungs = rates[env]["rungs"]
        best = max(inductive_rungs(rungs), key=lambda r: rungs[r]["rate"])
        want.append(f"{price_text(prices[best])} / {price_text(prices['planner'])}")
    assert _readme_prices()[suite] == want


@pytest.mark.parametrize("suite", ["lite", "challenge", "challenge-moderate"])
def test_readme_ladder_table_is_the_manifests(suite: str) -> None:
    manifest = read_suite(resolve_suite(suite)).manifest
    table = _readme_ladder()
    rates = {env: manifest["calibration"][env]["rungs"] for env in ENVS}

    def pct(x: float) -> int:
        return round(100 * x)

    assert table[(suite, "random (4 attempts)")] == [pct(rates[e]["random"]["rate"])
                                                     for e in ENVS]
    best = [pct(max(rates[e][r]["rate"] for r in inductive_rungs(rates[e]))) for e in ENVS]
    assert table[(suite, "best scripted inductive baseline")] == best
    assert table[(suite, "with-rules planner")] == [pct(rates[e]["planner"]["rate"])
                                                    for e in ENVS]
    free = [pct(max((rates[e][r]["rate"] for r in model_free_rungs(rates[e])), default=0))
            for e in ENVS]
    assert table[(suite, "best model-free rung (rejected if it solves)")] == free


def test_readme_suite_sizes_and_versions() -> None:
    lite = read_suite(resolve_suite("lite")).manifest
    challenge = read_suite(resolve_suite("challenge")).manifest
    moderate = read_suite(resolve_suite("challenge-moderate")).manifest
    odyssey = read_suite(resolve_suite("odyssey-lite")).manifest
    assert set(lite["counts"].values()) == {30} and "`suites/lite` (30 tasks per env)" in README
    assert set(challenge["counts"].values()) == {10} and "`suites/challenge` (10 per env)" in README
    assert set(moderate["counts"].values()) == {10}
    assert "`suites/challenge-moderate` (10 per\nenv)" in README
    assert sum(odyssey["counts"].values()) == 120 and "holds the 120 tasks" in README
    v = lite["env_versions"]
    assert v == moderate["env_versions"]
    claim = (f"Lite\nand the moderate Challenge are built with lights v{v['lights']}, trading "
             f"v{v['trading']},\nenergy v{v['energy']} and repo v{v['repo']}")
    assert claim in README
    c = challenge["env_versions"]
    claim = (f"the Challenge, at the paper's scale (issue 42), with lights v{c['lights']}, trading"
             f"\nv{c['trading']}, energy v{c['energy']} and repo v{c['repo']}")
    assert claim in README


def test_readme_challenge_sizes_are_the_released_tasks() -> None:
    """The horizon and size table's Challenge column (issue 42), from the released tasks."""
    suite = read_suite(resolve_suite("challenge"))
    tasks = suite.tasks
    row = {cells[0]: cells[2] for line in README.split("| env | Lite | Challenge (paper scale)",
                                                       1)[1].split("\n\n", 1)[0].splitlines()[2:]
           if (cells := [c.strip() for c in line.strip("|").split("|")])}

    def span(values: list[int]) -> str:
        return f"{min(values):,}-{max(values):,}"

    bulbs = [t.world["n"] for t in tasks["lights"]]
    lights = [t.certificate.min_steps for t in tasks["lights"]]
    assert {t.budget for t in tasks["lights"]} == {1000}
    (version,) = {t.env_version for t in tasks["lights"]}
    parts = registry.get("lights", version).load("presets")["challenge"].parts
    assert row["lights"] == (f"{span(bulbs)} bulbs in {parts} hidden independent parts, "
                             f"budget 1,000, minimum {span(lights)}")
    packages = [len(t.world["packages"]) for t in tasks["repo"]]
    repo = [t.certificate.min_steps for t in tasks["repo"]]
    assert {t.budget for t in tasks["repo"]} == {1000}
    assert row["repo"] == (f"{span(packages)} packages in hidden ring-puzzle groups, budget "
                           f"1,000, minimum {span(repo)}")
    stocks = [len(t.world["stocks"]) for t in tasks["trading"]]
    factors = [len(t.world["factors"]) for t in tasks["trading"]]
    regimes = [1 + len(t.world["regimes"]) for t in tasks["trading"]]
    assert {t.world["horizon"] for t in tasks["trading"]} == {1000}
    assert row["trading"] == (f"1,000 days, {span(stocks)} stocks x {span(factors)} factors, "
                              f"{span(regimes)} hidden regimes")
    sites = [t.world["sites"] for t in tasks["energy"]]
    kinds = {k: [sum(s.startswith(k) for s in ss) for ss in sites] for k in ("wind", "solar")}
    shifts = [sum(len(r) - 1 for r in t.world["regimes"].values()) for t in tasks["energy"]]
    assert {(t.world["horizon"], t.budget) for t in tasks["energy"]} == {(1000, 1100)}
    assert row["energy"] == (f"1,000 days (1,100 turns), {span([len(s) for s in sites])} "
                             f"renewable sites ({span(kinds['wind'])} wind, "
                             f"{span(kinds['solar'])} solar), {span(shifts)} regime changes "
                             "(each site its own)")


def test_bounds_only_claim_in_docs_tasks() -> None:
    """docs/tasks.md says no released lights or repo task is bounds-only."""
    text = (ROOT / "docs" / "tasks.md").read_text(encoding="utf-8")
    assert "In the released suites no task is bounds-only" in text
    for name in ("lite", "challenge", "challenge-moderate", "odyssey-lite"):
        suite = read_suite(resolve_suite(name))
        for env in ("lights", "repo"):
            assert all(t.certificate.min_steps is not None for t in suite.tasks[env]), (name, env)


def test_metrics_doc_scale_is_the_summary_scale() -> None:
    """docs/metrics.md says rates are stored on 0-100: an oracle's perfect attempt is 100."""
    from arena_gen.scoring.policy import attempt_score

    assert "stored in\n`summary.json` and printed on the same 0-100 scale" in (
        ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert attempt_score({"findings": [{"item": "a", "status": "met"}]}, ["a"]) == 100.0


def test_repo_doc_pip_show_is_v1_only() -> None:
    text = (ROOT / "docs" / "envs" / "repo.md").read_text(encoding="utf-8")
    assert re.search(r"`pip show NAME` \(v1 only", text)


#: Present-tense statements of which version the released ``lite`` / ``challenge`` hold, in an
#: env's page: "the released `lite` and `challenge` are v2", and a preset paragraph "vN (...
#: the version of the released `suites/lite` ...)" or "vN (...; what the released suites hold".
RELEASED_CLAIMS = (
    re.compile(r"released `lite` and\s+`challenge(?:-moderate)?` (?:are|hold) v(\d+)"),
    re.compile(r"^v(\d+) \((?:[^()]|\([^()]*\))*?the released\s+(?:suites\b|`suites/lite`)",
               re.M),
)


@pytest.mark.parametrize("env", ENVS)
def test_env_pages_name_the_released_version(env: str) -> None:
    """#24 row 16: docs/envs/energy.md and repo.md named an older version as the one the
    released suites hold (after the rebuild on energy v3 and repo v4 they did again)."""
    version = read_suite(resolve_suite("lite")).manifest["env_versions"][env]
    moderate = read_suite(resolve_suite("challenge-moderate")).manifest["env_versions"][env]
    assert moderate == version
    text = (ROOT / "docs" / "envs" / f"{env}.md").read_text(encoding="utf-8")
    claims = [int(m) for pattern in RELEASED_CLAIMS for m in pattern.findall(text)]
    assert all(c == version for c in claims), (env, version, claims)
    history = text.split("## Version History", 1)[1]
    entry = re.search(rf"^- v{version} \((.*?)\n- v|^- v{version} \((.*)", history, re.M | re.S)
    assert entry is not None and "`suites/lite` and `suites/challenge` rebuilt on it" in (
        entry.group(0)), (env, version)


def test_inspect_page_installs_the_openai_package_the_extra_lacks() -> None:
    """#24 row 16: docs/inspect.md's `openai/...` command needs `pip install openai`, which the
    `inspect` extra does not bring (the page says so and its install line adds it)."""
    import configparser

    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg", encoding="utf-8")
    extra = setup["options.extras_require"]["inspect"].split()
    assert not any(re.match(r"openai\b", req) for req in extra)
    text = (ROOT / "docs" / "inspect.md").read_text(encoding="utf-8")
    assert "pip install 'arena-gen[inspect]' openai\n" in text
    assert "`arena-gen[inspect]` does not install" in text
