"""Repo System v6: v5's game, unchanged, for worlds of hidden independent groups.

Every rule (installs, conflicts, run-time checks, messages) is :class:`~.game_v5.RepoGameV5`'s;
v6 is a new version because generation changed (:mod:`.sampler_v6`: a paper-scale Challenge of
ring-puzzle groups whose conditions are declared dependencies and conflicts), so a v6 task
names the sampler, verifier and ladder it was built with.
"""

from __future__ import annotations

from arena_gen.envs.repo.game_v5 import RepoGameV5


class RepoGameV6(RepoGameV5):
    """Repo System, version 6: :class:`~.game_v5.RepoGameV5`'s rules and messages.

    Description:
        As v5: packages, a Python, hidden dependency rules; ``python run.py`` must succeed.
    Action Space:
        As v5: one terminal command per turn (``pip install NAME[SPEC]``, ``pip install
        python==3.X``, ``pip uninstall NAME``, ``pip list``, ``repo tree``, ``python run.py``,
        ``python <script>``); text that is no command is invalid and costs a turn.
    Observation:
        As v5: the command's output, then the turns left (conflicts stated from the installed
        side only; every run-time failure one import or keyword error line).
    Starting State:
        No Python selected, nothing installed.
    Rewards:
        1.0 on the turn ``python run.py`` succeeds, 0.0 otherwise.
    Episode End:
        Terminated when ``python run.py`` succeeds; truncated when the turn budget is spent.
    Information:
        As v5: ``python``, ``installed``, ``scripts``, ``run_ok``.
    Rubric:
        ``run_ok`` (success) and one ``script_<name>_ok`` per entrypoint.
    Probes:
        v5's kinds and drawing.
    Arguments:
        ``task``: a repo v6 task, Draft, or :class:`~arena_gen.core.game.WorldView`.
    Version History:
        v6: (preview, issue 42) v5's rules unchanged; new generation (a Challenge of 95-125
        packages in hidden ring-puzzle groups, exact minimum >= 200 commands in 1,000 turns,
        :mod:`.sampler_v6`), a group-wise verifier (:mod:`.groups`), planner and learner.
    """
