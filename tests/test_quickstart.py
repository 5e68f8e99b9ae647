"""The README's quickstart, run verbatim (but for the install line, which CI's own install
already did) against the loopback OpenAI-compatible server, and its report opened in headless
Chromium with Pass@k for the run's k = 4 visible."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from test_report import render

from arena_gen.core.suite_io import read_suite, resolve_suite

README = Path(__file__).resolve().parent.parent / "README.md"


def quickstart_commands() -> list[str]:
    """The lines of the README's quickstart block."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quickstart: evaluate your model", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block, "the quickstart has no bash block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quickstart_block_is_install_then_run_score_report() -> None:
    lines = quickstart_commands()
    assert lines[0].startswith("python3 -m venv .venv && .venv/bin/pip install")
    verbs = [re.match(r"\.venv/bin/arena-gen (\w+)", line) for line in lines[2:]]
    assert [v.group(1) if v else None for v in verbs] == ["run", "score", "report"]
    assert "--attempts 4" in lines[2] and "--suite lite" in lines[2]


@pytest.mark.slow
def test_quickstart_runs_verbatim_against_the_loopback_server(tmp_path: Path) -> None:
    """The commands as written; CI plays 2 tasks per env (``ARENA_GEN_RUN_TASKS``, which
    ``run`` reads) to stay fast, ``ARENA_GEN_QUICKSTART_FULL=1`` plays all of Lite."""
    lines = quickstart_commands()[1:]  # the install line is this environment's own install
    full = os.environ.get("ARENA_GEN_QUICKSTART_FULL") == "1"
    bindir = Path(sys.executable).parent
    assert (bindir / "arena-gen").exists(), "arena-gen is not installed beside this python"
    (tmp_path / ".venv").symlink_to(bindir.parent)  # `.venv/bin/arena-gen` as the README says
    tasks = read_suite(resolve_suite("lite")).all_tasks()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ARENA_GEN_"))}
    if not full:
        picked = [t.id for env_name in ("lights", "trading", "energy", "repo")
                  for t in [t for t in tasks if t.env == env_name][:2]]
        env["ARENA_GEN_RUN_TASKS"] = ",".join(picked)
    with FakeOpenAI(tasks) as server:
        env["OPENAI_BASE_URL"] = server.url
        start = time.perf_counter()
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(lines)],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=1800)
        seconds = time.perf_counter() - start
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    print(f"quickstart against the loopback server: {seconds:.0f} s")
    assert "Pass@4" in done.stdout or "pass_at_4" in done.stdout
    page = tmp_path / "runs" / "lite-4o-mini" / "report.html"
    dom, _ = render(page, tmp_path)
    metrics = dom[dom.index('id="metrics"'):]
    metrics = metrics[:metrics.index("</table>")]
    assert "Pass@4" in metrics and "Avg@4" in metrics
