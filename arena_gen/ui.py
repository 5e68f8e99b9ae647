"""Terminal output: rich progress bars and tables on a TTY, plain lines elsewhere, or nothing.

rich is imported on first use, so importing this module (for ``DISPLAYS``) costs nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

DISPLAYS = ("rich", "plain", "none")


def resolve_display(display: str | None) -> str:
    """``rich`` on a terminal, ``plain`` otherwise, unless the user chose."""
    if display:
        return display
    return "rich" if sys.stdout.isatty() else "plain"


class Reporter:
    """Progress and tables for long commands, in the chosen display mode."""

    def __init__(self, display: str | None = None) -> None:
        from rich.console import Console

        self.mode = resolve_display(display)
        self.console = Console(highlight=False, soft_wrap=True)

    def line(self, text: str) -> None:
        if self.mode != "none":
            self.console.print(text, markup=False)

    @contextmanager
    def progress(self, total: int, label: str) -> Iterator[Any]:
        """Yield ``advance(description)``: a bar on a TTY, a line every ~10% otherwise."""
        if self.mode == "rich":
            from rich import progress as rp

            bar = rp.Progress(rp.TextColumn("{task.description}"), rp.BarColumn(),
                              rp.MofNCompleteColumn(), rp.TimeElapsedColumn(),
                              console=self.console, transient=False)
            with bar:
                handle = bar.add_task(label, total=total)

                def advance(desc: str | None = None) -> None:
                    bar.update(handle, advance=1, description=desc or label)

                yield advance
            return
        done = 0
        step = max(1, total // 10)

        def advance_plain(desc: str | None = None) -> None:
            nonlocal done
            done += 1
            if self.mode == "plain" and (done % step == 0 or done == total):
                print(f"{label}: {done}/{total}" + (f" ({desc})" if desc else ""), flush=True)

        yield advance_plain

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if self.mode == "none":
            return
        if self.mode == "rich":
            from rich.table import Table

            table = Table(title=title)
            for col in columns:
                table.add_column(col)
            for row in rows:
                table.add_row(*(str(c) for c in row))
            self.console.print(table)
            return
        widths = [max(len(str(c)) for c in [col, *(r[i] for r in rows)])
                  for i, col in enumerate(columns)]
        print(title)
        print("  ".join(str(c).ljust(w) for c, w in zip(columns, widths, strict=True)))
        for row in rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
