"""Helpers of the repo v2 differential test: load the released env, classify its messages,
draw command sequences."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

ENV_VAR = "ARENA_GEN_ODYSSEY_CHECKOUT"
RELEASED = Path(__file__).resolve().parents[2] / "shared" / "reference-data" / "odyssey-arena" / \
    "repo" / "test_repo_lite_251217.json"


def reference_module() -> Any | None:
    """The released RepoEnv_v7 module from the checkout named by the env var, or None."""
    root = os.environ.get(ENV_VAR)
    if not root:
        return None
    path = Path(root) / "RepoEnv" / "RepoEnv_v7.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("odyssey_repo_env_v7", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_PREFIXES = [
    ("ERROR: Unknown command", "invalid"), ("ERROR: Invalid pip install command", "invalid"),
    ("ERROR: Unsupported command.", "invalid"), ("ERROR: Invalid requirement spec", "invalid"),
    ("ERROR: Invalid pip uninstall command", "invalid"),
    ("ERROR: Unsupported python command", "invalid"),
    ("ERROR: Installing Python requires", "python_needs_version"),
    ("ERROR: Only exact Python", "python_exact_only"),
    ("ERROR: Could not find a Python version", "python_unavailable"),
    ("Successfully installed python==", "python_installed"),
    ("ERROR: Could not find a package named", "unknown_package"),
    ("ERROR: Could not find any version of", "no_matching_version"),
    ("ERROR: Could not find a version that satisfies", "no_matching_version"),
    ("ERROR: Cannot satisfy dependency", "dependency_unsatisfiable"),
    ("ERROR: Side-effect for", "side_effect_unsatisfiable"),
    ("Successfully uninstalled", "uninstalled"),
    ("ERROR: Python is not configured", "python_unset"),
    ("Project executed successfully.", "run_ok"),
    ("ERROR: Unknown script", "unknown_script"),
    ("Environment status:", "list"), ("Repo tree:", "tree"),
]


def reference_kind(msg: str, world: dict[str, Any], command: str) -> tuple[str, str | None,
                                                                          str | None]:
    """(kind, script, failing check) of a released-env message, by its message class."""
    if msg == "":
        return "noop", None, None
    if msg.startswith("ERROR: Project execution failed.\n  - "):
        inner = msg.split("\n  - ", 1)[1]
        m = re.match(r"while running '([^']+)': ", inner)
        if m:
            kind, script, inner = "run_failed", m.group(1), inner[m.end():]
        else:
            kind, script = "script_failed", command.split()[1]
        m = re.match(r"in '[^']+': ", inner)
        if m:
            inner = inner[m.end():]
            check = ("module_missing" if inner.startswith("ModuleNotFoundError") else
                     "symbol_missing" if inner.startswith("ImportError") else
                     "signature_mismatch" if inner.startswith("TypeError: during project") else
                     "caller_signature_mismatch" if inner.startswith("TypeError: while import")
                     else "?")
        else:
            cons = {r.get("error") for r in world.get("consistency_rules", [])}
            hidden = {r.get("error") for r in world.get("hidden_rules", [])}
            check = "consistency" if inner in cons and inner not in hidden else \
                "hidden_rule" if inner in hidden and inner not in cons else \
                "consistency|hidden_rule" if inner in cons else "?"
        return kind, script, check
    if msg.startswith("Script executed successfully: "):
        return "script_ok", msg.split(": ", 1)[1], None
    if "is already installed" in msg:
        return "already_installed", None, None
    if msg.startswith("ERROR:") and "but no Python version is configured" in msg:
        return "requires_python_unset", None, None
    if msg.startswith("ERROR:") and "requires Python" in msg:
        return "requires_python", None, None
    if "the following required dependencies are missing" in msg:
        return "missing_dependencies", None, None
    if msg.startswith("ERROR: Cannot install") and "because it conflicts with" in msg:
        return "conflict", None, None
    if msg.startswith("ERROR: Package '") and msg.endswith("is not installed."):
        return "not_installed", None, None
    for prefix, kind in _PREFIXES:
        if msg.startswith(prefix):
            return kind, None, None
    if msg.startswith("Successfully installed "):
        return "installed", None, None
    return "?", None, None


def random_command(world: dict[str, Any], rng: np.random.Generator) -> str:
    """A random command, often malformed (version syntax, operators, tags, extra tokens)."""
    names = sorted(world["packages"])
    name = names[int(rng.integers(len(names)))]
    versions = world["packages"][name]["versions"]
    v = versions[int(rng.integers(len(versions)))]
    w = versions[int(rng.integers(len(versions)))]
    scripts = list(world["scripts"])
    roll = float(rng.random())
    table = [
        (0.40, f"pip install {name}=={v}"),
        (0.47, f"pip install {name}"),
        (0.52, f"pip install {name}{rng.choice(['>=', '>', '<=', '<'])}{v}"),
        (0.56, f"pip install {name}>={v},<{w}"),
        (0.58, f"pip install {name}=={v}.{int(rng.integers(3))}"),
        (0.60, f"pip install {name}!={v}"),
        (0.61, f"pip install {name}>={v},!={w}"),
        (0.62, f"pip install {name}==latest"),
        (0.63, f"pip install {name} {names[0]}"),
        (0.64, "pip install pkg99"),
        (0.69, f"pip install python=={rng.choice(['3.8', '3.9', '3.10', '3.11', '3.7'])}"),
        (0.70, str(rng.choice(["pip install python", "pip install python>=3.9",
                               "pip install", "pip installx pkg0"]))),
        (0.76, f"pip uninstall {name}"),
        (0.77, str(rng.choice(["pip uninstall", "pip uninstall python"]))),
        (0.80, str(rng.choice(["pip list", "repo tree", "repo ls", "", "noop", "pip show " + name,
                               "pip check", "ls", "python"]))),
        (0.88, f"python {scripts[int(rng.integers(len(scripts)))]}"),
        (0.89, str(rng.choice(["python nothere.py", "python3 run.py",
                               f"<action>pip install {name}=={v}</action>"]))),
        (1.01, "python run.py"),
    ]
    return next(text for bound, text in table if roll < bound)
