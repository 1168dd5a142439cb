"""The trace a rank leaves when it dies on a fatal signal, and where it died.

A rank that gloo aborts (``gloo::EnforceNotMet`` -> ``std::terminate`` -> SIGABRT when the ranks pass
different sizes or dtypes to one collective, NVIDIA/nccl#1394; SIGFPE on an empty all_gather,
pytorch/pytorch#85234) runs no more Python: no flight-recorder dump. :func:`enable` points the standard
library's :mod:`faulthandler` at ``<dump_dir>/rank<R>.fatal`` so the C-level handler writes the Python stacks
(the collective and the user's line) before the process dies; :func:`site` reads them back for ``check
collectives``. SIGKILL (the OOM killer) leaves nothing.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import IO, Any

from faultlib.detect.distributed.sites import FAULTLIB_DIR

NAME = re.compile(r"rank(\d{1,6})\.fatal")
_ERROR = re.compile(r"Fatal Python error: ([^\n]{1,200})")
_FRAME = re.compile(r'^\s*File "([^"\n]{1,4096})", line (\d{1,9}) in ([^\s]{1,200})', re.M)


def enable(dump_dir: Path, rank: int) -> IO[str] | None:
    """Route faulthandler to ``dump_dir/rank<rank>.fatal`` (all threads) and return the open file; None when the
    program enabled faulthandler itself, the rank is not known yet (no default group and no ``RANK``: several
    processes would share one name), or the file cannot be created (said on stderr)."""
    import faulthandler

    import torch.distributed as dist

    if faulthandler.is_enabled() or not (dist.is_initialized() or os.environ.get("RANK", "").isdigit()):
        return None
    try:
        dump_dir.mkdir(parents=True, exist_ok=True)
        file = open(dump_dir / f"rank{rank}.fatal", "w", encoding="utf-8",  # never through a link planted there
                    opener=lambda name, flags: os.open(name, flags | os.O_NOFOLLOW, 0o644))
        faulthandler.enable(file=file, all_threads=True)
        return file
    except OSError as exc:  # the recorder still records; only this trace is lost
        print(f"faultlib flight recorder: no fatal-signal trace: {exc}", file=sys.stderr)
        return None


def close(file: IO[str] | None) -> None:
    """Stop the trace and remove its file when nothing was written (no fatal signal). Returns None."""
    if file is None:
        return None
    import faulthandler

    faulthandler.disable()
    path = Path(file.name)
    file.close()
    try:
        if path.stat().st_size == 0:
            path.unlink()
    except OSError:
        pass
    return None


def site(text: str, ops: frozenset[str] | set[str]) -> dict[str, Any] | None:
    """Where a faulthandler trace says the process died: ``{error, op, file, line, function}``, ``op`` the
    innermost frame named as one of ``ops`` (a ``torch.distributed`` collective), ``file``/``line``/``function``
    the innermost frame outside torch and faultlib (the user's line), from the thread that was inside a collective
    (else faulthandler's "Current thread"). None when ``text`` holds no fatal error."""
    error = _ERROR.search(text)
    if error is None:
        return None
    # one block per thread, most recent call first; the abort often comes from a backend thread (no Python
    # frames, so no "Current thread"): the Python thread inside a collective is the one that was waiting in it
    blocks = [_FRAME.findall(b) for b in re.split(r"\n\s*\n", text[error.end():]) if "thread" in b[:40].lower()]
    current = [_FRAME.findall(b) for b in re.split(r"\n\s*\n", text) if b.lstrip().startswith("Current thread")]
    frames = next((f for f in blocks if any(fn in ops for _, _, fn in f)), current[0] if current else [])
    op = next((fn for _, _, fn in frames if fn in ops), None)
    user = next(((f, int(n), fn) for f, n, fn in frames
                 if f"{os.sep}torch{os.sep}" not in f and not f.startswith(FAULTLIB_DIR)), (None, None, None))
    return {"error": error.group(1).strip(), "op": op, "file": user[0], "line": user[1], "function": user[2]}
