"""Start-up stays cheap (#17): importing the CLI loads no solver, plotting, HTTP, Gym or
crypto module."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("gymnasium", "scipy", "pysat", "z3", "matplotlib", "ray", "httpx", "aiohttp",
         "cryptography")


def loaded_after(code: str) -> set[str]:
    """Top-level module names in ``sys.modules`` after running ``code`` in a fresh Python."""
    out = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\n"
                          "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"],
                         capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_importing_the_cli_loads_no_heavy_module() -> None:
    loaded = loaded_after("import arena_gen.cli")
    assert "arena_gen" in loaded and "click" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_help_loads_no_heavy_module() -> None:
    loaded = loaded_after("from arena_gen.cli import main\n"
                          "try:\n    main(['show', '--help'])\nexcept SystemExit:\n    pass")
    assert sorted(loaded & set(HEAVY)) == []


def test_gym_ids_register_whichever_is_imported_first() -> None:
    code = ("import {first}, {second}\n"
            "print([i for i in gymnasium.registry if i.startswith('arena_gen/')])")
    from arena_gen.core import registry

    expected = [registry.get(name, v).gym_id for name in registry.names()
                for v in registry.versions(name)]
    assert "arena_gen/TurnOnLights-v1" in expected and "arena_gen/RepoSystem-v2" in expected
    for first, second in (("arena_gen", "gymnasium"), ("gymnasium", "arena_gen")):
        out = subprocess.run([sys.executable, "-c", code.format(first=first, second=second)],
                             capture_output=True, text=True, check=True, timeout=60)
        assert out.stdout.strip() == str(expected), (first, out.stderr)
