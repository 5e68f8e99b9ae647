"""Bounded reads of untrusted files: regular files only, lines and files capped.

Every file arena-gen reads from a user or a run (task JSONL, manifest, signature, keys, import
files, findings, trajectories, run.json) goes through here, so a hostile path cannot hang a
command or exhaust its memory:

- only a regular file is opened: a FIFO, device or socket is refused with a
  :class:`~arena_gen.core.errors.SchemaError` naming the file, before anything blocks
  (``os.stat`` first, then ``open`` with ``O_NONBLOCK`` and ``fstat`` of what was opened);
- a file larger than the per-file cap is refused from its size, before it is read (a sparse
  2 GB file costs nothing), and reading stops at the cap if the file grows meanwhile;
- lines are streamed, each at most the per-line cap: a longer line (a 1 GB blank line) is
  refused, or skipped, without ever being held whole.

The caps are ``ARENA_GEN_MAX_LINE_BYTES`` (default 16 MiB; also the cap of a file that holds one
JSON document, such as ``run.json`` or ``manifest.json``) and ``ARENA_GEN_MAX_FILE_BYTES``
(default 512 MiB, for a JSONL file), and ``ARENA_GEN_MAX_IMPORT_BYTES`` (default 64 MiB, for a
released data file given to ``import``), read from the environment at each call.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from typing import BinaryIO

from arena_gen.core.errors import SchemaError

#: Default cap of one line, and of a file holding a single JSON document (bytes).
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
#: Default cap of a JSONL file (bytes).
DEFAULT_MAX_FILE_BYTES = 512 * 1024 * 1024
#: Default cap of a released data file given to ``import`` (one JSON document; the largest
#: OdysseyArena file is 7.5 MB).
DEFAULT_MAX_IMPORT_BYTES = 64 * 1024 * 1024
LINE_ENV = "ARENA_GEN_MAX_LINE_BYTES"
FILE_ENV = "ARENA_GEN_MAX_FILE_BYTES"
IMPORT_ENV = "ARENA_GEN_MAX_IMPORT_BYTES"
#: Bytes read at a time while skipping the rest of an overlong line.
_CHUNK = 1 << 20

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))


def _cap(env: str, default: int) -> int:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SchemaError(f"${env} is {raw[:40]!r}, not a whole number of bytes") from None
    if value < 1:
        raise SchemaError(f"${env} is {value}; it must be at least 1")
    return value


def max_line_bytes() -> int:
    """The per-line cap (``$ARENA_GEN_MAX_LINE_BYTES``), read now so a test or user can set it."""
    return _cap(LINE_ENV, DEFAULT_MAX_LINE_BYTES)


def max_file_bytes() -> int:
    """The per-file cap of a JSONL file (``$ARENA_GEN_MAX_FILE_BYTES``)."""
    return _cap(FILE_ENV, DEFAULT_MAX_FILE_BYTES)


def max_import_bytes() -> int:
    """The cap of one file given to ``import`` (``$ARENA_GEN_MAX_IMPORT_BYTES``)."""
    return _cap(IMPORT_ENV, DEFAULT_MAX_IMPORT_BYTES)


def read_import_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a released data file for ``import``: regular, at most the import cap."""
    return _read_capped(path, max_import_bytes(), IMPORT_ENV, "the import file")


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _refuse(path: str | os.PathLike[str], what: str, mode: int) -> SchemaError:
    return SchemaError(f"cannot read {what}: it is {_kind(mode)}, not a regular file "
                       f"(refused without waiting on it)", file=str(path))


def open_regular(path: str | os.PathLike[str], what: str = "the file") -> BinaryIO:
    """``path`` opened for binary reading if it is a regular file; a FIFO, device, socket or
    folder raises SchemaError naming it, without blocking. A missing or unreadable file
    raises the OSError (callers name it as they do today)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise _refuse(path, what, mode)
    # O_NONBLOCK: if the path was swapped for a FIFO after the stat, open still returns at once
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _refuse(path, what, mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _too_large(path: str | os.PathLike[str], limit: int, env: str | None) -> SchemaError:
    hint = f" (${env} raises the cap)" if env else ""
    return SchemaError(f"larger than {limit} bytes; refused{hint}", file=str(path))


def _read_capped(path: str | os.PathLike[str], limit: int, env: str | None,
                 what: str) -> bytes:
    with open_regular(path, what) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise _too_large(path, limit, env)
        # read(n) sets n bytes aside before reading: ask for the size the file has (a small
        # document then costs its size, not the cap), and for the rest only if it grew
        data = fh.read(size + 1)
        if len(data) > size:
            data += fh.read(limit + 1 - len(data))
    if len(data) > limit:  # grew after the fstat
        raise _too_large(path, limit, env)
    return data


def read_bounded(path: str | os.PathLike[str], limit: int | None = None,
                 what: str = "the file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (default: the per-line cap, the
    size of one JSON document); a larger file raises SchemaError without being read whole."""
    if limit is None:
        return _read_capped(path, max_line_bytes(), LINE_ENV, what)
    return _read_capped(path, limit, None, what)


def iter_lines(path: str | os.PathLike[str], *, max_line: int | None = None,
               max_file: int | None = None, what: str = "the file",
               on_overlong: Callable[[int], None] | None = None) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw)`` for every line of a regular file, ``raw`` with its newline
    (a last line without one is yielded as it is). A line longer than ``max_line`` raises
    SchemaError naming file and line, or, with ``on_overlong``, is skipped after calling it with
    the line number; a file larger than ``max_file`` is refused before the first line."""
    line_cap = max_line_bytes() if max_line is None else max_line
    file_cap = max_file_bytes() if max_file is None else max_file
    with open_regular(path, what) as fh:
        if os.fstat(fh.fileno()).st_size > file_cap:
            raise _too_large(path, file_cap, FILE_ENV)
        total = 0
        lineno = 0
        while True:
            raw = fh.readline(line_cap + 1)
            if not raw:
                return
            lineno += 1
            total += len(raw)
            if len(raw) > line_cap and not raw.endswith(b"\n"):  # content past the cap
                while not raw.endswith(b"\n"):  # skip to the end of the line, a chunk at a time
                    raw = fh.readline(_CHUNK)
                    if not raw:
                        break
                    total += len(raw)
                    if total > file_cap:
                        raise _too_large(path, file_cap, FILE_ENV)
                if on_overlong is None:
                    raise SchemaError(f"line longer than {line_cap} bytes; refused "
                                      f"(${LINE_ENV} raises the cap)", file=str(path),
                                      line=lineno)
                on_overlong(lineno)
                continue
            if total > file_cap:
                raise _too_large(path, file_cap, FILE_ENV)
            yield lineno, raw


def refuse_special(path: str | os.PathLike[str], what: str = "the file") -> None:
    """Raise SchemaError if ``path`` exists and is a FIFO, device or socket (never opening it);
    a missing or unreadable path is left to the caller's own message."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise _refuse(path, what, mode)
