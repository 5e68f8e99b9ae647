"""Re-chain a run directory after a test edited its lines: what a forger who recomputes the
digests would do, so the tests of the replay's defences reach the scorer past the chain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena_gen.runner.rundir import PREV, chain_lines, plan_digest


def reseal(run_dir: str | Path, records: list[dict[str, Any]] | None = None) -> None:
    """Write ``records`` (default: the file's lines as they are) as a valid chain from
    run.json's plan, and run.json's head to match."""
    run = Path(run_dir)
    path = run / "trajectories.jsonl"
    if records is None:
        records = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    meta = json.loads((run / "run.json").read_text())
    data, head = chain_lines([{k: v for k, v in r.items() if k != PREV} for r in records],
                             plan_digest(meta))
    path.write_bytes(data)
    meta["chain"] = {"head": head}
    (run / "run.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
