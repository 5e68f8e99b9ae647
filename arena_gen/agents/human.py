"""A person at the terminal: sees exactly the observation an agent sees and types the action.

Lines that start with ``:`` are meta-commands, never turns: ``:help`` shows them and the
task's action format, ``:quit`` ends the episode (recorded as ``quit``). An empty line, and a
bare ``quit``, ``exit`` or ``help`` (a likely slip for the meta-command), are not turns either:
they print a hint and ask again. Ctrl-C and the end of input end the episode like ``:quit``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arena_gen.agents.llm_prompts import disclosed_intro
from arena_gen.core.agent import QuitEpisode, TaskView

HELP = """Commands (not turns):
  :help   show this help and the action format
  :quit   end the episode now (it is saved, ending as 'quit'); Ctrl-C does the same
Anything else is your action for this turn."""
#: Bare words that are almost surely meant as the meta-command, so they cost no turn.
SLIPS = {"quit": ":quit", "exit": ":quit", "q": ":quit", "help": ":help", "?": ":help"}


class HumanAgent:
    """Prints each observation and reads one line of input as the action."""

    name = "human"
    privileged = False

    def __init__(self, read: Callable[[str], str] | None = None,
                 write: Callable[[str], None] | None = None) -> None:
        self._read = read or input
        self._write = write or print
        self._format = ""
        self._intro = ""

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self._format = str(view.public.get("action_format", "")) if isinstance(
            view.public, dict) else ""
        # with the rules shown, the first observation's intro is reworded as prompts word it
        self._intro = str(view.public.get("intro", "")) if view.rules_text and isinstance(
            view.public, dict) else ""
        self._write(f"== {view.task_id} ({view.env}), {view.budget} turns ==  "
                    f"(:help for commands, :quit to stop)")
        if view.rules_text:
            self._write("Rules:\n" + view.rules_text)

    def observe_end(self, observation: str) -> None:
        """Show the observation after the last turn (the winning move's result too): an
        episode that ends asks for no further action, so :meth:`act` never shows it."""
        self._write("\n" + observation)

    def act(self, observation: str) -> str:
        if self._intro and observation.startswith(self._intro):
            observation = disclosed_intro(self._intro) + observation[len(self._intro):]
        self._write("\n" + observation)
        while True:
            try:
                line = self._read("action> ")
            except (EOFError, KeyboardInterrupt):
                raise QuitEpisode("the player stopped") from None
            command = line.strip()
            if command in (":quit", ":q"):
                raise QuitEpisode("the player typed :quit")
            if command == ":help":
                self._write(HELP + (f"\nAction format: {self._format}" if self._format else ""))
                continue
            if not command:
                self._write("(empty input is not a turn; :help for commands)")
                continue
            if command.lower() in SLIPS:
                self._write(f"(not a turn: type {SLIPS[command.lower()]} for that)")
                continue
            if command.startswith(":"):
                self._write(f"(unknown command {command}; :help lists them)")
                continue
            return line
