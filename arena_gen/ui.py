"""Terminal output: rich progress bars and tables on a TTY, plain lines elsewhere, or nothing.

rich is imported on first use, so importing this module (for ``DISPLAYS``) costs nothing.
"""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

DISPLAYS = ("rich", "plain", "none")

#: Plain lines never run wider than this (a terminal's or a CI log's usual width).
WIDTH = 80


def clock(seconds: float | None) -> str:
    """``h:mm:ss`` (``?`` while unknown), the form ``rich`` uses for elapsed time."""
    if seconds is None:
        return "?"
    whole = int(round(max(0.0, seconds)))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def rate(count: float, seconds: float, unit: str = "turns") -> str:
    """A rate with the precision it needs: ``0.38 turns/s``, ``12.5 turns/s``, ``840 turns/s``
    (a 9-minute episode of 200 turns is not "0 turns/s")."""
    r = count / seconds if seconds > 0 else 0.0
    digits = 0 if r >= 100 else 1 if r >= 10 else 2
    return f"{r:.{digits}f} {unit}/s"


class Work:
    """What a build or verify is doing: done/total, rejections and cache hits per group (env),
    which groups are running, elapsed time and an ETA.

    The ETA is the work left, in seconds of one worker, over the workers: each group's items
    not finished at the mean time its finished items took (from hand-out to finish), or, for a
    group with none finished yet, at its planned cost scaled by how the finished items' times
    compared with their plan (the specs' costs are seconds of another machine and load); an
    item running counts what is left of it. A plan that is off by 10x in one env then costs
    only until that env's first item finishes, not the whole build (the ETA used to divide
    the elapsed time by the planned cost finished). Groups count as running when one of their
    items is among the oldest ``jobs`` handed out (a pool runs them in that order).
    """

    def __init__(self, totals: dict[str, int], jobs: int = 1,
                 clock_fn: Callable[[], float] = time.monotonic,
                 reject_word: str = "rej") -> None:
        self.totals = dict(totals)
        self.reject_word = reject_word
        self.jobs = max(1, jobs)
        self.done = {g: 0 for g in totals}
        self.rejected = {g: 0 for g in totals}
        self.cached = {g: 0 for g in totals}
        self.cost_left = {g: float(n) for g, n in totals.items()}
        self.cost_done = 0.0
        self.in_flight: list[str] = []
        #: When each item in flight began to run (None: queued behind the oldest ``jobs``),
        #: in the order of :attr:`in_flight`.
        self.since: list[float | None] = []
        #: Per group: seconds its finished items ran, their planned cost, how many.
        self.took = {g: 0.0 for g in totals}
        self.planned_took = {g: 0.0 for g in totals}
        self.measured = {g: 0 for g in totals}
        self._clock = clock_fn
        self.start = clock_fn()
        #: Called with (this, event, group) after each ``started`` / ``finished``.
        self.on_change: Callable[[Work, str, str], None] | None = None

    def plan(self, costs: dict[str, float]) -> None:
        """Replace the default (one unit per item) with each group's expected total cost."""
        self.cost_left = {g: float(costs.get(g, 0.0)) for g in self.totals}

    def started(self, group: str) -> None:
        """One item of ``group`` was handed to a worker."""
        self.in_flight.append(group)
        self.since.append(self._clock() if len(self.in_flight) <= self.jobs else None)
        if self.on_change:
            self.on_change(self, "started", group)

    def finished(self, group: str, *, rejected: int = 0, cached: bool = False,
                 cost: float = 1.0) -> None:
        """One item of ``group`` finished (``cost``: its share of the planned cost)."""
        planned = self.per_item(group)
        now = self._clock()
        if group in self.in_flight:  # a pool finishes the oldest item of a group first
            at = self.in_flight.index(group)
            self.in_flight.pop(at)
            began = self.since.pop(at)
            if began is not None and not cached:  # a cache hit says nothing of the rest
                self.took[group] += max(0.0, now - began)
                self.planned_took[group] += planned
                self.measured[group] += 1
            for i in range(min(self.jobs, len(self.since))):  # the next one begins to run
                if self.since[i] is None:
                    self.since[i] = now
        self.done[group] += 1
        self.rejected[group] += rejected
        self.cached[group] += int(cached)
        spent = min(cost, self.cost_left[group])
        self.cost_left[group] -= spent
        self.cost_done += spent
        if self.on_change:
            self.on_change(self, "finished", group)

    def per_item(self, group: str) -> float:
        """The planned cost of one item of ``group`` not finished yet."""
        left = self.totals[group] - self.done[group]
        return self.cost_left[group] / left if left > 0 else 0.0

    def expected(self, group: str, scale: float) -> float:
        """Seconds one item of ``group`` is expected to take: its finished items' mean, else
        its plan times ``scale``."""
        if self.measured[group]:
            return self.took[group] / self.measured[group]
        return self.per_item(group) * scale

    @property
    def total(self) -> int:
        return sum(self.totals.values())

    @property
    def finished_count(self) -> int:
        return sum(self.done.values())

    def elapsed(self) -> float:
        return self._clock() - self.start

    def eta(self) -> float | None:
        """Seconds left, or None before anything measurable finished."""
        if self.finished_count >= self.total:
            return 0.0
        planned, took = sum(self.planned_took.values()), sum(self.took.values())
        if planned <= 0.0 or took <= 0.0:
            if self.cost_done <= 0.0:
                return None  # nothing measurable finished yet
            return self.elapsed() * sum(self.cost_left.values()) / self.cost_done
        scale, now = took / planned, self._clock()
        each = {group: self.expected(group, scale) for group in self.totals}
        running = [(g, s) for g, s in zip(self.in_flight, self.since, strict=True)
                   if s is not None]
        work = sum(max(0.0, each[g] - (now - s)) for g, s in running)
        for group in self.totals:
            waiting = self.totals[group] - self.done[group] - sum(g == group for g, _ in running)
            work += waiting * each[group]
        return work / self.jobs

    def working(self) -> list[str]:
        return list(dict.fromkeys(self.in_flight[: self.jobs]))

    def group_text(self, group: str) -> str:
        parts = [f"{group} {self.done[group]}/{self.totals[group]}"]
        if self.rejected[group]:
            parts.append(f"{self.rejected[group]} {self.reject_word}")
        if self.cached[group]:
            parts.append(f"{self.cached[group]} cached")
        if group in self.working():
            parts.append("working")
        return ", ".join(parts)

    def plain_lines(self, label: str) -> list[str]:
        """A header and the per-group state, wrapped to :data:`WIDTH` columns."""
        head = (f"{label}: {self.finished_count}/{self.total}, {clock(self.elapsed())} elapsed, "
                f"eta {clock(self.eta())}")
        groups = "; ".join(self.group_text(g) for g in self.totals)
        return [*textwrap.wrap(head, WIDTH, subsequent_indent="  "),
                *textwrap.wrap(groups, WIDTH, initial_indent="  ", subsequent_indent="  ")]


def resolve_display(display: str | None) -> str:
    """``rich`` on a terminal, ``plain`` otherwise, unless the user chose."""
    if display:
        return display
    return "rich" if sys.stdout.isatty() else "plain"


class Reporter:
    """Progress and tables for long commands, in the chosen display mode."""

    def __init__(self, display: str | None = None, console: Any = None) -> None:
        from rich.console import Console

        self.mode = resolve_display(display)
        #: rich's console: its width is the terminal's, else ``$COLUMNS``, else 80
        self.console = console or Console(highlight=False, soft_wrap=True)

    @property
    def width(self) -> int:
        """The columns a table may take."""
        return max(20, int(self.console.width))

    def line(self, text: str) -> None:
        if self.mode != "none":
            self.console.print(text, markup=False)

    @contextmanager
    def progress(self, total: int, label: str) -> Iterator[Any]:
        """Yield ``advance(description, step=1)``: a bar on a TTY, a line every ~10 % otherwise
        (``step=0`` only changes the description)."""
        if self.mode == "rich":
            from rich import progress as rp

            bar = rp.Progress(rp.TextColumn("{task.description}"), rp.BarColumn(),
                              rp.MofNCompleteColumn(), rp.TimeElapsedColumn(),
                              console=self.console, transient=False)
            with bar:
                handle = bar.add_task(label, total=total)

                def advance(desc: str | None = None, step: int = 1) -> None:
                    bar.update(handle, advance=step, description=desc or label)

                yield advance
            return
        done = 0
        every = max(1, total // 10)

        def advance_plain(desc: str | None = None, step: int = 1) -> None:
            nonlocal done
            if not step:  # a new description only: the plain lines carry it on the next one
                return
            done += step
            if self.mode == "plain" and (done % every == 0 or done == total):
                print(f"{label}: {done}/{total}" + (f" ({desc})" if desc else ""), flush=True)

        yield advance_plain

    @contextmanager
    def work(self, label: str, totals: dict[str, int], *, jobs: int = 1,
             heartbeat: float = 30.0, reject_word: str = "rej") -> Iterator[Work]:
        """Yield a :class:`Work` to feed; a row per group on a TTY, plain lines otherwise (at
        each ~10 %, each finished group, and at least every ``heartbeat`` seconds)."""
        work = Work(totals, jobs, reject_word=reject_word)
        if self.mode == "rich":
            yield from self._rich_work(work, label)
            return
        if self.mode == "none":
            yield work
            return
        step = max(1, work.total // 10)
        last = [time.monotonic()]

        def changed(work: Work, event: str, group: str) -> None:
            if event != "finished":
                return
            n = work.finished_count
            due = (n % step == 0 or n == work.total or work.done[group] == work.totals[group]
                   or time.monotonic() - last[0] >= heartbeat)
            if due:
                last[0] = time.monotonic()
                for text in work.plain_lines(label):
                    print(text, flush=True)

        work.on_change = changed
        yield work

    @contextmanager
    def heartbeat(self, beat: Callable[[], None], period: float) -> Iterator[None]:
        """Call ``beat`` every ``period`` seconds on a background thread while the block runs
        (never with ``--display none`` or a period of 0), so a long episode shows it is alive."""
        if self.mode == "none" or period <= 0:
            yield
            return
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(period):
                beat()

        thread = threading.Thread(target=loop, name="arena-gen-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _rich_work(self, work: Work, label: str) -> Iterator[Work]:
        from rich import progress as rp

        bar = rp.Progress(rp.TextColumn("{task.description}"), rp.BarColumn(bar_width=16),
                          rp.MofNCompleteColumn(), rp.TextColumn("{task.fields[note]}"),
                          rp.TimeElapsedColumn(), rp.TextColumn("{task.fields[eta]}"),
                          console=self.console, transient=False, refresh_per_second=4)
        width = max([len(g) for g in work.totals] + [5]) + 2
        self.line(label)
        with bar:
            total_row = bar.add_task("total".ljust(width), total=work.total, note="", eta="eta ?")
            rows = {g: bar.add_task(f"  {g}".ljust(width), total=n, note="", eta="")
                    for g, n in work.totals.items()}

            def refresh(*_: Any) -> None:
                working = work.working()
                for g, handle in rows.items():
                    notes = ([f"{work.rejected[g]} {work.reject_word}"] if work.rejected[g]
                             else [])
                    if work.cached[g]:
                        notes.append(f"{work.cached[g]} cached")
                    mark = ">" if g in working else " "
                    bar.update(handle, completed=work.done[g], note=" ".join(notes)[:16],
                               description=f"{mark} {g}".ljust(width))
                bar.update(total_row, completed=work.finished_count, eta=f"eta {clock(work.eta())}")

            work.on_change = refresh
            yield work
            refresh()

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
              long_columns: Sequence[str] | None = None) -> None:
        """A table that fits :attr:`width`: columns side by side when they fit, else one block
        per row (its first cell, then a ``label  value`` line per column, labels from
        ``long_columns``), so no cell is ever cut."""
        if self.mode == "none":
            return
        cells = [[str(c) for c in row] for row in rows]
        for text in textwrap.wrap(title, self.width, break_on_hyphens=False,
                                  break_long_words=False) or [""]:
            self.line(text)
        if self.mode == "rich":
            from rich import box
            from rich.measure import Measurement
            from rich.table import Table

            table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                          collapse_padding=True)  # two spaces between columns, as plain
            for i, col in enumerate(columns):
                table.add_column(col, justify="left" if i == 0 else "right", no_wrap=True)
            for row in cells:
                table.add_row(*row)
            unbounded = self.console.options.update(max_width=1 << 20)  # its natural width
            if Measurement.get(self.console, unbounded, table).maximum <= self.width:
                self.console.print(table)
                return
        else:
            widths = [max(len(c) for c in [col, *(r[i] for r in cells)])
                      for i, col in enumerate(columns)]
            if sum(widths) + 2 * (len(widths) - 1) <= self.width:
                self.line("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
                for row in cells:
                    self.line("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
                return
        for line in vertical_lines(list(long_columns or columns), cells, self.width):
            self.line(line)


def vertical_lines(columns: Sequence[str], rows: Sequence[Sequence[str]], width: int
                   ) -> list[str]:
    """Rows one after the other: the first cell, then ``label  value`` per other column,
    wrapped to ``width`` (a table too wide for the terminal, read without cutting a cell)."""
    labels = list(columns[1:])
    pad = min(max((len(c) for c in labels), default=0), width // 2)
    out = []
    for row in rows:
        out.append(row[0] if row[0].strip() else columns[0])
        indent = "    " if row[0].startswith(" ") else "  "
        for label, value in zip(labels, row[1:], strict=True):
            out.extend(textwrap.wrap(f"{label.ljust(pad)}  {value}", width,
                                     break_on_hyphens=False, initial_indent=indent,
                                     subsequent_indent=indent + " " * (pad + 2)))
    return out
