"""inspect_ai integration: arena-gen suites as inspect tasks, played and judged as arena-gen does.

``inspect eval arena_gen/lite --model PROVIDER/MODEL -T env=lights -T mode=with-rules`` plays the
released Lite suite through inspect's model API: one model call per turn with the prompt of the
built-in LLM agent, the reply's last ``<action>`` played through the task's own game, and the
trajectory judged by arena-gen's judge and score policy. Install with ``pip install
'arena-gen[inspect]'``; inspect finds the tasks through the ``inspect_ai`` entry point.
"""

from __future__ import annotations

try:
    import inspect_ai  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the extra being absent
    raise ImportError("arena_gen.inspect needs inspect_ai: "
                      "pip install 'arena-gen[inspect]'") from exc

from arena_gen.inspect.dataset import suite_dataset
from arena_gen.inspect.scorer import judge_scorer
from arena_gen.inspect.solver import baseline, model_agent
from arena_gen.inspect.tasks import challenge, lite, suite, suite_task

__all__ = ["baseline", "challenge", "judge_scorer", "lite", "model_agent", "suite",
           "suite_dataset", "suite_task"]
