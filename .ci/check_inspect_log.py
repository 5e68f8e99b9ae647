"""CI: the log of ``inspect eval arena_gen/lite -T env=lights --model mockllm/model --limit 2``
must hold arena-gen's scores: per sample the judge's success, credit, steps, induction
efficiency and end-reason counts (agent_error, env_error) with findings,
and the reduced metrics; and each sample's metadata names only the task, its suite and the
agent's view (no world, witness or certificate).
Usage: ``python .ci/check_inspect_log.py LOG_DIR``; exit 1 when not."""

from __future__ import annotations

import sys

from inspect_ai.log import list_eval_logs, read_eval_log

SCORER, VALUES = "judge_scorer", ("success", "credit", "steps", "pass_at_k",
                                  "induction_efficiency", "agent_error", "env_error")
VIEW_KEYS = {"task_id", "suite", "suite_sha256", "mode", "env", "budget"}


def problems(log_dir: str) -> list[str]:
    logs = list_eval_logs(log_dir)
    if len(logs) != 1:
        return [f"expected one log in {log_dir}, found {len(logs)}"]
    log = read_eval_log(logs[0])
    found = []
    if log.status != "success":
        found.append(f"log status {log.status}: {log.error}")
    if log.eval.task != "arena_gen/lite":
        found.append(f"task {log.eval.task}, not arena_gen/lite")
    samples = log.samples or []
    if len(samples) != 2:
        found.append(f"{len(samples)} samples, not 2")
    for sample in samples:
        if set(sample.metadata or {}) != VIEW_KEYS:
            found.append(f"{sample.id}: metadata keys {sorted(sample.metadata or {})}, not "
                         f"{sorted(VIEW_KEYS)}")
        score = (sample.scores or {}).get(SCORER)
        value = score.value if score else None
        if not isinstance(value, dict) or sorted(value) != sorted(VALUES):
            found.append(f"{sample.id}: no arena-gen score ({value!r})")
            continue
        if not str(sample.id).startswith("lights-"):
            found.append(f"{sample.id}: not a lights task")
        if not (score and score.metadata and score.metadata.get("findings")):
            found.append(f"{sample.id}: no findings in the score's metadata")
        print(f"CI: inspect sample {sample.id}: {value}")
    reduced = {(s.name, s.reducer) for s in (log.results.scores if log.results else [])
               if s.scorer == SCORER}
    missing = [f"{n} ({r})" for n in VALUES for r in ("epochs",) if (n, r) not in reduced]
    if missing:
        found.append("reduced metrics missing: " + ", ".join(missing))
    return found


if __name__ == "__main__":
    bad = problems(sys.argv[1])
    for line in bad:
        print(f"CI: inspect log: {line}")
    sys.exit(1 if bad else 0)
