"""Repo System v4: v2's rules with one message format for every run-time check.

Every check ``python`` can fail (a call's provider missing, a symbol missing, an unexpected
keyword, a consistency rule, a hidden rule) reports one line of one of two shapes, always with
the module and the importer:

    ``ImportError: cannot import name 'SYM' from 'PKG.MOD' (imported by 'WHO')``
    ``TypeError: PKG.MOD.SYM() got an unexpected keyword argument 'KW' (imported by 'WHO')``

``WHO`` is the script being run, or the installed package whose symbol requirement failed. A
provider that is not installed is reported as the import of the symbol the script needs (as a
missing module would be, but in the shared shape). Consistency and hidden-rule messages are
world texts drawn from the same form (:func:`.sampler_v4.message`); a world text may hold the
placeholder ``{importer}``, filled at run time with the failing member (consistency) or the
script being run (hidden rule), so no part of a message tells which kind of rule raised it.

Decisions: only messages differ from :class:`~.game_v2.RepoGameV2`; which checks pass, in which
order, and every install rule are v2's, so the v3 verifier and planner apply unchanged.
"""

from __future__ import annotations

from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import Call, RepoGameV2, RunFailure

#: The placeholder a world's consistency or hidden-rule text may hold (the importer).
IMPORTER = "{importer}"


def import_error(module: str, symbol: str, importer: str) -> str:
    """The shared import-failure line."""
    return f"ImportError: cannot import name '{symbol}' from '{module}' (imported by '{importer}')"


def keyword_error(module: str, symbol: str, keyword: str, importer: str) -> str:
    """The shared keyword-failure line."""
    return (f"TypeError: {module}.{symbol}() got an unexpected keyword argument '{keyword}' "
            f"(imported by '{importer}')")


class RepoGameV4(RepoGameV2):
    """Repo System, version 4: :class:`~.game_v2.RepoGameV2` with uniform run-time messages.

    Description:
        As v2 (:class:`~.game_v2.RepoGameV2`): packages, a Python, hidden dependency rules;
        ``python run.py`` must succeed.
    Action Space:
        As v2: one terminal command per turn (``pip install NAME[SPEC]``, ``pip install
        python==3.X``, ``pip uninstall NAME``, ``pip list``, ``repo tree``, ``python run.py``,
        ``python <script>``); text that is no command is invalid and costs a turn.
    Observation:
        The command's output, then the turns left. Every run-time failure is one line:
        ``ImportError: cannot import name 'SYM' from 'PKG.MOD' (imported by 'WHO')`` or
        ``TypeError: PKG.MOD.SYM() got an unexpected keyword argument 'KW' (imported by
        'WHO')``, whichever check (API use, consistency rule, hidden rule) failed.
    Starting State:
        No Python selected, nothing installed.
    Rewards:
        1.0 on the turn ``python run.py`` succeeds, 0.0 otherwise.
    Episode End:
        Terminated when ``python run.py`` succeeds; truncated when the turn budget is spent.
    Information:
        As v2: ``python``, ``installed``, ``scripts``, ``run_ok``; each event's ``kind``,
        ``script`` and failing ``check`` (kept out of the agent's view).
    Rubric:
        ``run_ok`` (success) and one ``script_<name>_ok`` per entrypoint.
    Arguments:
        ``task``: a repo v4 task, Draft, or :class:`~arena_gen.core.game.WorldView`.
    Version History:
        v4: every run-time failure is one line of one shape (module and importer always
        present, no trailing period, only ``ImportError`` and ``TypeError``); consistency and
        hidden-rule texts are drawn from the same form and name the failing member or the
        script, so a message's form never tells a real check from a decoy (issue 25).
    """

    def script_failure(self, installed: tuple[int, ...], path: str) -> RunFailure | None:
        """THE run-time rule of one script (v2's checks and order), in the v4 messages."""
        r = self.rules
        touched = r.touched[path]
        for kind, anchor, members, text in r.consistency:
            if anchor not in touched and not any(m in touched for m in members):
                continue
            a = installed[anchor]
            if a == ABSENT:
                continue
            av = r.versions[anchor][a]
            for m in members:
                if installed[m] == ABSENT:
                    continue
                mv = r.versions[m][installed[m]]
                if (kind == "same_major_with_anchor" and mv[0] != av[0]) or \
                        (kind == "same_minor_with_anchor" and mv != av):
                    return RunFailure("consistency", text.replace(IMPORTER, r.names[m]))
        for call in r.calls[path]:
            fail = self.call_failure_v4(installed, call, path)
            if fail is not None:
                return fail
        for (caller, cv), reqs in r.needs.items():
            if caller not in touched or installed[caller] != cv:
                continue
            for call in reqs:
                fail = self.call_failure_v4(installed, call, r.names[caller])
                if fail is not None:
                    return fail
        for when, scopes, text in r.hidden:
            if path not in scopes and "run.py" not in scopes and "*" not in scopes:
                continue
            if all(installed[q] != ABSENT and installed[q] in allowed for q, allowed in when):
                return RunFailure("hidden_rule", text.replace(IMPORTER, path))
        return None

    def call_failure_v4(self, installed: tuple[int, ...], call: Call,
                        importer: str) -> RunFailure | None:
        """THE rule of one API use (v2's), reported in the shared shapes."""
        r = self.rules
        pv = installed[call.provider]
        if pv == ABSENT:
            return RunFailure("module_missing", import_error(call.module, call.symbol, importer))
        mods = r.api.get((call.provider, pv), {})
        if call.module not in mods:
            return RunFailure("module_missing", import_error(call.module, call.symbol, importer))
        if call.symbol not in mods[call.module]:
            return RunFailure("symbol_missing", import_error(call.module, call.symbol, importer))
        sig = mods[call.module][call.symbol]
        for kw in call.kwargs:
            if kw not in sig:
                return RunFailure("signature_mismatch",
                                  keyword_error(call.module, call.symbol, kw, importer))
        return None
