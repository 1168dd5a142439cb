"""Which coroutines reach a blocker, and where each of them calls into it: the first step of every path from an
``async def`` (or a loop callback) to the blocking site. A finding names its shortest path; the other lines are
where a caller-side fix goes too (``await asyncio.to_thread(helper, ...)`` at each of them). Used by
:mod:`~faultlib.detect.serving.blocking.reach`."""

from __future__ import annotations

from typing import Any

from faultlib.detect.serving.blocking.frameworks import runs_inline
from faultlib.detect.serving.blocking.included_routers import included_handler
from faultlib.detect.serving.blocking.shadowed_classes import shadowed_method
from faultlib.detect.serving.blocking.flask_views import flask_async_view
from faultlib.detect.serving.blocking.thread_workers import thread_worker

MAX_CALLS = 32
"""Call lines kept per blocking site (the rest are still counted in the site's entries)."""

__all__ = ["MAX_CALLS", "loop_entry", "note_entry", "scanned_entry"]


def note_entry(entries: dict[tuple, list[str]], calls: dict[tuple, list[tuple[str, int, str]]], key: tuple,
               entry: Any, path: tuple) -> None:
    """Record that ``entry`` reaches the site ``key`` along ``path`` (``((func, line), ...)``, the entry's own
    call line first): its qualified name once in ``entries[key]``, that line once in ``calls[key]`` as
    ``(file, line, function)``."""
    names = entries.setdefault(key, [])
    if entry.qualname not in names:
        names.append(entry.qualname)
    func, line = path[0]
    step = (func.module.path, line, func.qualname)
    kept = calls.setdefault(key, [])
    if step not in kept and len(kept) < MAX_CALLS:
        kept.append(step)


def loop_entry(index: Any, func: Any) -> bool:
    """Whether ``func`` is an entry of the scan: a coroutine, or a plain ``def`` its framework calls on the loop
    (:mod:`~faultlib.detect.serving.blocking.frameworks`: an MCP SDK FastMCP tool), and :func:`scanned_entry`; not a
    coroutine its framework runs on a worker thread's own loop
    (:mod:`~faultlib.detect.serving.blocking.thread_workers`: Textual's ``@work(thread=True)``;
    :mod:`~faultlib.detect.serving.blocking.flask_views`: a Flask app's ``async def`` view), nor a method of a
    class the module redefines below (:mod:`~faultlib.detect.serving.blocking.shadowed_classes`)."""
    private = thread_worker(index, func) or flask_async_view(index, func)  # run on a loop of their own
    return (((func.is_async and not private) or runs_inline(index, func)) and scanned_entry(index, func)
            and not shadowed_method(func))  # a handler of a class the module defines again below: dead


def scanned_entry(index: Any, func: Any) -> bool:
    """Whether the coroutine ``func`` is an entry of the scan: any of the scanned files', and one of a package read
    from outside the scanned directory (:mod:`~faultlib.detect.serving.blocking.outside`) only when a scanned file
    calls a function of its name (the framework that drives the outside package's own coroutines is not the scan's),
    or when it is a route handler of a router the scanned app includes
    (:mod:`~faultlib.detect.serving.blocking.included_routers`)."""
    if func.module.path not in index.outside:
        return True
    return any(caller.module.path not in index.outside for _, caller in index.infer.sites().get(func.node.name, [])) \
        or included_handler(index, func)
