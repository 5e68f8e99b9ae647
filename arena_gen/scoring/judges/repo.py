"""Repo judge: ``run_ok`` and one ``script_<name>_ok`` per script, from the env's final info."""

from __future__ import annotations

from typing import Any

from ...core.task import Task
from . import Finding, finding


def item_id(path: str) -> str:
    """``data/check_io.py`` -> ``script_check_io_ok``."""
    return f"script_{path.rsplit('/', 1)[-1].removesuffix('.py')}_ok"


def judge(task: Task, trajectory: dict[str, Any]) -> list[Finding]:
    """Success from ``run_ok``; partial credit from each script's pass/fail in the final state."""
    info = trajectory.get("final_info") or {}
    paths = [s["path"] for s in task.world["scripts"]]
    if "scripts" not in info or "run_ok" not in info:
        return [finding("run_ok", None, "no final state recorded")] + [
            finding(item_id(p), None, "no final state recorded") for p in paths]
    scripts = info["scripts"]
    passed = sum(bool(scripts.get(p)) for p in paths)
    out = [finding("run_ok", bool(info["run_ok"]),
                   f"python run.py {'succeeded' if info['run_ok'] else 'did not succeed'}; "
                   f"{passed}/{len(paths)} scripts pass in the final state")]
    for p in paths:
        if p not in scripts:
            out.append(finding(item_id(p), None, f"{p} missing from the final state"))
        else:
            ok = bool(scripts[p])
            out.append(finding(item_id(p), ok, f"{p} {'passes' if ok else 'fails'} at the end"))
    return out
