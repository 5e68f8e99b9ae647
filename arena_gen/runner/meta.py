"""What ``run.json`` records, built in one place so ``run`` and ``play`` write the same fields.

Secrets never enter it: agent options that look like keys or tokens are dropped.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from arena_gen.core.budget import harness_budget
from arena_gen.core.records import RunMeta
from arena_gen.core.redact import public_url
from arena_gen.core.task import Task
from arena_gen.core.version import __version__

#: Agent options recorded although their names look like secrets (``--max-tokens``).
PUBLIC_CONFIG_KEYS = ("max_tokens", "max_prompt_tokens")
PACKAGES = ("numpy", "scipy", "python-sat", "z3-solver", "gymnasium", "jsonschema", "httpx",
            "aiohttp")


def package_versions() -> dict[str, str]:
    """Versions of arena-gen and the packages that decide its results."""
    out = {"arena-gen": __version__, "python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def git_revision() -> str | None:
    """The checkout's commit when arena-gen runs from a git checkout, else None."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def now() -> str:
    """UTC wall-clock time for ``started`` / ``ended`` (never part of a frozen file)."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def public_config(config: dict[str, Any] | None) -> dict[str, Any]:
    """Agent config as recorded: secret-looking options dropped, URLs without credentials (nor
    the API key in use, wherever in the URL it sits)."""
    key = os.environ.get("OPENAI_API_KEY", "")
    return {k: public_url(v, (key,)) if isinstance(v, str) and k.lower().endswith("url") else v
            for k, v in (config or {}).items()
            if (k in PUBLIC_CONFIG_KEYS
                or not any(s in k.lower() for s in ("key", "token", "secret", "password")))
            and not callable(v)}


def run_meta(manifest: dict[str, Any], suite_path: str | Path, tasks: Sequence[Task], *,
             agent: str, agent_config: dict[str, Any] | None = None, mode: str = "inductive",
             attempts: int = 1, seed: int = 0, executor: str = "local",
             jobs: int = 1, harness: str = "arena-gen", probes: int = 0) -> dict[str, Any]:
    """The ``run.json`` fields of a run over ``tasks`` of one suite (without start/end times),
    built as a typed record; ``budgets`` are the steps ``harness`` gives each task; ``probes``
    (per milestone, 0: off) is recorded only when on, so older runs still ``--resume``."""
    extra = {"probes": {"per_milestone": int(probes)}} if probes else {}
    return RunMeta.model_validate({**extra,
        "suite": manifest["suite"], "suite_path": str(suite_path),
        "suite_sha256": manifest["suite_sha256"],
        "agent": {"name": agent, "config": public_config(agent_config)},
        "mode": mode, "attempts": attempts, "seed": seed,
        "envs": sorted({t.env for t in tasks}), "tasks": [t.id for t in tasks],
        "budgets": {t.id: harness_budget(harness, t) for t in tasks},
        "executor": executor, "jobs": jobs, "harness": harness,
        "package_versions": package_versions(), "git_revision": git_revision(),
    }).to_json_dict()
