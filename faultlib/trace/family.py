"""The parent side of traced children (:mod:`faultlib.trace.children`): read what the children and the launches
wrote into the pass's folder, list them in the report (``children``), and take a child's first non-finite value as
the answer when the traced process itself saw none.

One row per child process: ``{"pid", "argv", "traced", "why_not", "watched", "end", "error", "first_nonfinite",
"tripped_steps", "exit_code"}`` (``exit_code``: what its parent reaped, negative for a signal, else null: see
:mod:`faultlib.trace.exits`); ``traced`` false (with ``why_not``) for a start that never reported: not a Python interpreter,
an isolated one (``-I``, ``-S``, ``-E``: no site customisation or no ``PYTHONPATH``), an environment replaced without
faultlib's variables, or an interpreter that cannot import faultlib.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from faultlib.trace import exits
from faultlib.trace.children import ENV_FOLDER, ENV_PLAN

__all__ = ["ENV_PLAN", "env_for", "first_tripped", "plan_for", "process_of", "public", "read_children",
           "replayed_row", "summary_notes", "watched_total"]

ISOLATING_FLAGS = frozenset("ISE")  # python -I (isolated), -S (no site), -E (no PYTHON* variables)


def _load(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # being replaced, or cut short by a kill


def _isolated(argv: list[str]) -> str | None:
    """The option of a Python command line that switches off ``sitecustomize`` or ``PYTHONPATH``, if any."""
    for arg in argv[1:]:
        if arg in ("-c", "-m") or not arg.startswith("-") or arg.startswith("--"):
            return None  # the interpreter's own options end at the script, -c or -m
        flags = arg[1:]
        for i, flag in enumerate(flags):
            if flag in ISOLATING_FLAGS:
                return f"-{flag}"
            if flag in "cmWXQ":  # an option that takes the rest as its value
                break
    return None


def _why_not(launch: dict[str, Any], running: bool = False) -> str:
    """Why a start never reported (``running``: the session found it still running after the script ended)."""
    argv = launch.get("argv") or []
    program = Path(launch.get("executable") or (argv[0] if argv else "?")).name
    if not program.startswith("python"):
        return (f"not a Python interpreter ({program}); Python processes it starts with this environment are "
                "armed and listed on their own")
    flag = _isolated(argv)
    if flag is not None:
        return f"an isolated interpreter ({flag}: no site customisation or PYTHONPATH)"
    if not launch.get("env_kept", True):
        return ("started with an environment (env=...) without faultlib's variable or its PYTHONPATH entry "
                "(a PYTHONPATH replaced, not extended)")
    if running:
        return "it never reported"
    return "it never reported: killed before its first line, or it exited through os._exit before Python's exit"


def read_children(folder: Path) -> list[dict[str, Any]]:
    """The children of one pass, in the order they started (rows of the module docstring, plus ``key``, ``nth``,
    ``trip``, ``event``, ``dump``, ``dump_error``, ``notes`` for the session)."""
    if not folder.is_dir():
        return []
    launches = {p.name[7:-5]: _load(p) for p in folder.glob("launch-*.json")}
    reports = {p.name[6:-5]: _load(p) for p in folder.glob("child-*.json")}
    ended = {p.name[5:-5]: _load(p) for p in folder.glob("exit-*.json")}  # reaped by a parent (faultlib.trace.exits)
    rows = []
    def started(pid: str) -> tuple[float, int]:
        return (launches.get(pid) or reports.get(pid) or {}).get("t", 0), int(pid)

    for pid in sorted(set(launches) | set(reports), key=started):
        launch, report = launches.get(pid) or {}, reports.get(pid)
        if not launch and report and report.get("torch") is False and not report.get("forked"):
            continue  # a helper the script did not start itself (multiprocessing's resource tracker) and no torch
        row: dict[str, Any] = {"pid": int(pid), "argv": launch.get("argv") or (report or {}).get("argv"),
                               "traced": False, "why_not": None, "watched": None, "end": None, "error": None,
                               "first_nonfinite": None, "tripped_steps": 0, "exit_code": None}
        code = (ended.get(pid) or {}).get("code")
        if isinstance(code, int):
            row["exit_code"] = code
        if report is None:
            running = exits.outlived(ended.get(pid))
            row["why_not"] = _why_not(launch, running) + (f" ({exits.describe(code)})" if isinstance(code, int) else
                                                          f"; {exits.OUTLIVED}" if running and launch else "")
        elif report.get("could_not_arm"):
            row["why_not"] = (f"the fork could not be armed ({report['could_not_arm']})" if report.get("forked") else
                              f"its interpreter cannot import faultlib ({report['could_not_arm']})")
        else:
            trip = report.get("trip")
            row.update(traced=True, watched=report.get("watched"), end=report.get("end"), error=report.get("error"),
                       tripped_steps=int(report.get("tripped_steps") or 0), key=report.get("key"),
                       nth=report.get("nth"), trip=trip, event=report.get("event"), dump=report.get("dump"),
                       dump_error=report.get("dump_error"), notes=list(report.get("notes") or []),
                       findings=list(report.get("findings") or []))
            if "watched" not in report:  # only what it wrote while running: how it ended is not its own word
                row.update(why_not=exits.why_ended(report, ended.get(pid)), end=None)
            if trip is not None:
                row["first_nonfinite"] = {"step": trip["step"], "phase": trip["phase"], "module": trip["module"],
                                          "seen_in": trip["where"], "file": trip.get("file"), "line": trip.get("line")}
        rows.append(row)
    return rows


PUBLIC = ("pid", "argv", "traced", "why_not", "watched", "end", "error", "first_nonfinite", "tripped_steps",
          "exit_code")


def public(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the report's JSON shows it."""
    return {k: row.get(k) for k in PUBLIC}


def process_of(row: dict[str, Any]) -> dict[str, Any]:
    """``first_nonfinite.process``: which child made the value."""
    return {"pid": row["pid"], "argv": row["argv"]}


def first_tripped(rows: list[dict[str, Any]], before: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The child whose watch saw a non-finite value first (wall clock: ``trip.time``), when it saw it before the trip
    ``before`` of the traced process itself (or that one saw none). Hogwild children that write a NaN into shared
    weights trip before the parent evaluates them: the children's value is the first."""
    tripped = sorted((row for row in rows if row.get("trip") is not None),
                     key=lambda row: row["trip"].get("time") or 0.0)
    if not tripped or (before is not None and (tripped[0]["trip"].get("time") or 0.0) >= (before.get("time") or 0.0)):
        return None
    return tripped[0]


def plan_for(row: dict[str, Any], dump: Path) -> str:
    """``FAULTLIB_TRACE_CHILD_PLAN`` for the replay of ``row``'s child (:mod:`faultlib.trace.children`)."""
    trip = row["trip"]
    return json.dumps({"key": row["key"], "nth": row["nth"], "arm_at": trip.get("arm_at") or 0,
                       "trip_step": trip["step"], "arm_step": trip.get("arm_step"),
                       "arm_start": bool(trip.get("arm_start")), "dump": str(dump.resolve())})


def replayed_row(rows: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any] | None:
    """The same child in the replay's rows (the same command, the same start of it)."""
    return next((r for r in rows if r.get("traced") and r.get("key") == row["key"] and r.get("nth") == row["nth"]),
                None)


def summary_notes(rows: list[dict[str, Any]]) -> list[str]:
    """Sentences for the report: the children that ran untraced, and why."""
    untraced = [r for r in rows if r["why_not"]]
    if not untraced:
        return []
    listed = "; ".join(f"pid {r['pid']} ({' '.join(map(str, (r['argv'] or [])[:4]))}): {r['why_not']}"
                       for r in untraced[:5])
    more = f"; and {len(untraced) - 5} more" if len(untraced) > 5 else ""
    return [f"{len(untraced)} child process(es) not traced, a non-finite value there is not reported: {listed}{more}"]


def watched_total(parent: dict[str, int] | None, rows: list[dict[str, Any]]) -> dict[str, int] | None:
    """``watched`` over the traced process and its traced children (``processes``: how many of them were traced)."""
    if parent is None:
        return None
    total = {"forwards": parent.get("forwards", 0), "optimizer_steps": parent.get("optimizer_steps", 0),
             "processes": 1}
    for row in rows:
        if row["traced"] and row["watched"]:
            total["forwards"] += row["watched"].get("forwards", 0)
            total["optimizer_steps"] += row["watched"].get("optimizer_steps", 0)
            total["processes"] += 1
    return total


def env_for(folder: Path) -> dict[str, str]:
    """The environment the session gives the traced process for its children's reports."""
    return {ENV_FOLDER: os.fspath(folder)}
