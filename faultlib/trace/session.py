"""Parent side of ``faultlib trace``: check the command, run the watch pass, then the replay; build the report.

Promise: everything the user names (the script, its interpreter, ``--dump-dir``; the CLI checks ``--out``
as a :class:`faultlib.outputs.OutputFile`) is checked before the script runs, and a script that fails
(raises, exits non-zero by itself, is interrupted, cannot start) is reported as such: exit code
:data:`EXIT_FOUND` means a non-finite value was found, and nothing else.
"""

from __future__ import annotations

import enum
import json
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from faultlib.errors import ScriptError  # noqa: F401 - faultlib.trace exports it from here
from faultlib.trace import family, orphans
from faultlib.trace.command import check_writable_dir, resolve_command

#: the replay runs the script again up to the step that tripped: it may take this many times as long as the
#: first run took to trip, plus the margin (seconds); an endless script is then stopped and said to be
REPLAY_FACTOR = 3.0
REPLAY_MARGIN_S = 60.0  # FAULTLIB_TRACE_REPLAY_MARGIN_S sets another margin


def _seconds(raw: str | None, default: float) -> float:
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if 0 <= value < float("inf") else default

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USAGE = 2
EXIT_SCRIPT_FAILED = 4
EXIT_CODES: dict[str, str] = {
    "0": "the script ran to its end (exit code 0) and every value stayed finite (with --asyncio: no event loop "
         "was blocked past the threshold)",
    "1": "a non-finite value (NaN or inf) was found, and only then (with --asyncio: the event loop was blocked "
         "past the threshold, and only then)",
    "2": "bad usage, checked before the script runs: no such script or interpreter, --out or --dump-dir "
         "not writable",
    "4": "the script failed on its own: it raised, exited with code 1 (sys.exit(1), sys.exit('message')), "
         "was interrupted or killed by a signal, or could not start (its interpreter cannot import torch "
         "and faultlib; with --asyncio, faultlib)",
    "other": "the script's own exit code, when it exited by itself with a code other than 0 and 1",
}
"""The exit codes of ``faultlib trace`` (also in its ``--help``)."""

LAUNCHER = """\
import json, os, sys
try:
    import torch
    from faultlib.trace.launch import main
except ImportError as exc:
    with open(os.environ["FAULTLIB_TRACE_RESULT"], "w") as fh:
        json.dump({"could_not_start": f"{type(exc).__name__}: {exc}"}, fh)
    sys.exit(4)
sys.exit(main(sys.argv[1:]))
"""
"""Run as ``PYTHON -c LAUNCHER SCRIPT ARGS...``: an interpreter without torch or faultlib says so in the result file."""

NOTHING_WATCHED = "nothing watched: no torch module/optimizer ran"
"""The start of the note of a report that is not :attr:`TraceReport.complete`."""

FIRST_NONFINITE_FIELDS = ("kind", "step", "phase", "module", "op", "aten_op", "file", "line", "tensor", "source",
                          "input", "batch_index", "samples", "seen_in", "upstream", "optimizer",
                          "gradients_reached")


class Reason(str, enum.Enum):
    """Why a trace is not ok (``reason`` in the report)."""

    NONFINITE = "nonfinite"  # a non-finite value was found (exit 1)
    SCRIPT_RAISED = "script_raised"  # an uncaught exception (exit 4)
    SCRIPT_EXIT = "script_exit"  # the script exited by itself with a non-zero code (that code; 4 for code 1)
    INTERRUPTED = "interrupted"  # KeyboardInterrupt, or killed by a signal (exit 4)
    COULD_NOT_START = "could_not_start"  # the interpreter failed before the script's first line (exit 4)
    LOOP_BLOCKED = "loop_blocked"  # --asyncio: the event loop was blocked past the threshold (exit 1)


def exit_code_for(reason: "Reason | None", script_exit: int | None, *, found: "Reason") -> int:
    """The exit code of ``faultlib trace`` (:data:`EXIT_CODES`) for a report's ``reason``: 0 ok, 1 when
    ``reason`` is the mode's finding (``found``), the script's own code when it exited by itself with
    one other than 0 and 1, else 4."""
    if reason is None:
        return EXIT_OK
    if reason is found:
        return EXIT_FOUND
    status = (script_exit or 0) % 256  # the status the OS reports for sys.exit(n)
    if reason is Reason.SCRIPT_EXIT and status not in (EXIT_OK, EXIT_FOUND):
        return status
    return EXIT_SCRIPT_FAILED


@dataclass
class TraceReport:
    """What ``faultlib trace --json`` prints (DESIGN.md). Steps are 0-based optimizer steps (in a
    script without an optimizer: calls of the outermost model).

    Attributes:
        reason: None when ok, else a :class:`Reason`.
        first_nonfinite: None, or where the first non-finite value was seen: ``step``, ``phase``
            (forward|backward), ``module`` (dotted name of the innermost module, null outside any),
            ``op`` (aten op or autograd node that produced it; null when the replay did not
            confirm it or the value was already there), ``aten_op``, ``file``/``line`` (your
            source line: the op's call, or where the tensor holding the value was consumed),
            ``tensor`` (``{shape, dtype, nan, inf, finite_min, finite_max}``, counts of
            elements), ``source`` (``op``: produced by an op of the step; ``input``: already in
            the batch the step consumed, the model's arguments or another tensor from outside
            the step such as the loss's target; ``parameter``: already in the model's
            parameters or buffers; ``gradient``: the gradients an ``optimizer.step()`` outside
            ``GradScaler.step()`` applied, see :func:`faultlib.trace.causes.step_past_scaler`;
            null: not confirmed by the replay), ``input`` (which tensor,
            e.g. ``args[0] of Net.forward``, ``argument 1 of torch.nn.functional.mse_loss``,
            a parameter's name), ``batch_index`` (0-based index of the model call whose batch
            the step was processing: the DataLoader batch index in a one-epoch loop with one
            call per batch), ``seen_in`` (the watch check that tripped; ``the script's error (...)``
            when the script died of a non-finite value; ``buffer NAME of MODEL at the script's end``
            or ``parameter NAME of ...`` when one finite before its model's first forward was not at the
            end, written under no_grad where no output or gradient showed it), ``kind`` (``value``; ``grad_norm_overflow``:
            ``clip_grad_norm_``'s total norm overflowed with every gradient finite; ``optimizer_update``:
            ``optimizer.step()`` wrote it, ``phase`` ``optimizer``), ``upstream`` (one step upstream of
            the op: where the non-finite values of its inputs and its mask were written, see
            :class:`faultlib.detect.numerics.nan_locator.NonFiniteEvent`), ``optimizer`` (for
            ``optimizer_update``: ``{optimizer, param_group, parameter, dtype, lr, eps,
            nonfinite_params, cause}``, see :func:`faultlib.trace.causes.optimizer_update`),
            ``gradients_reached`` (``{parameters, count}``: the parameters whose gradient the value
            reached, when the replay ran the step's backward).
        replay_step: the step at which the replay (a second run) saw a non-finite value; null if
            it saw none. When it differs from ``first_nonfinite.step``, the script does not run
            the same way twice and ``first_nonfinite`` keeps the first run's step.
        replayed: the replay saw the value at the same step and named its op or its input.
        dump: path of the dump (``torch.load(path, weights_only=True)``, keys in
            :func:`faultlib.trace.batch.write_dump`) or None.
        script_exit: the script's exit status when it ended by itself (0 when it ran to its end,
            ``sys.exit(n)``: n, ``sys.exit("message")`` or an uncaught exception: 1); null when
            faultlib trace stopped it, it was interrupted or killed, or it never started.
        stopped_by_trace: faultlib trace stopped the script at the first non-finite value.
        error: the script's failure in one line (``ValueError: bad config``, ``killed by SIGKILL``)
            or None.
        tripped_steps: steps in which the watch pass saw a non-finite value (>1 only with ``--continue``, or in a
            child: the watch never stops one).
        notes: what else the user should know, in sentences.
        findings: the first run's GradScaler and mixed-precision misuse
            (:class:`faultlib.detect.training.scaler_audit.GradScalerAudit`: ``clip_scaled_gradients``,
            ``step_without_scaled_backward``, ``fp16_master_weights``, ``eps_underflow``), each a
            ``Finding`` JSON with the call site (``location.file``/``line``) and the fix. They do not
            change ``ok``, ``reason`` or the exit code: 1 means a non-finite value, and only that.
        ranks: a torchrun world (:mod:`faultlib.trace.world`): one row per rank, ``{rank, role (producer|
            received|clean), step, phase, module, seen_in, received, sent, end, script_exit, error}``;
            ``received``/``sent``: the first collective that brought the value in / carried it out
            (``{op, seq, group, call_site, step, order}``, ``seq`` per process group); null for one process.
        first_rank: the rank that produced the value first (``first_nonfinite.rank``); null when no rank did
            (one process, or the collective made it).
        watched: ``{"forwards", "optimizer_steps", "processes"}`` the watch pass saw in the traced process and the
            Python children it started (``processes``: how many were traced; null for a world of ranks); both 0:
            nothing was watched (:attr:`nothing_watched`: ``complete`` false, a note, and the CLI says so instead of
            "ok"; ``ok`` and the exit code keep their meaning).
        children: the processes the script started (:mod:`faultlib.trace.family`: ``{pid, argv, traced, why_not,
            watched, end, error, first_nonfinite, tripped_steps}``), null when it started none. Python children are
            traced through the environment (:mod:`faultlib.trace.children`); a child's value seen before any the
            script saw is ``first_nonfinite`` (``process: {pid, argv}``)
    """

    reason: Reason | None = None
    first_nonfinite: dict[str, Any] | None = None
    replay_step: int | None = None
    replayed: bool = False
    dump: str | None = None
    script_exit: int | None = 0
    stopped_by_trace: bool = False
    error: str | None = None
    tripped_steps: int = 0
    notes: list[str] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    ranks: list[dict[str, Any]] | None = None
    first_rank: int | None = None
    watched: dict[str, int] | None = None
    children: list[dict[str, Any]] | None = None

    @property
    def nothing_watched(self) -> bool:
        """The traced process ran no model forward and no optimizer step: "no non-finite value" then means
        nothing was looked at (a launcher whose training runs in a child it started, a script without torch)."""
        return bool(self.watched) and not (self.watched.get("forwards") or self.watched.get("optimizer_steps"))

    @property
    def complete(self) -> bool:
        """Whether the analysis covered anything (``complete`` in the JSON, DESIGN.md): false when nothing was
        watched (:attr:`nothing_watched`), so an ``ok`` there says no value was seen, not that the training was
        checked. ``ok`` and the exit code do not depend on it (1 always means a non-finite value was found)."""
        return not self.nothing_watched

    @property
    def ok(self) -> bool:
        """The script ran to its end, exit code 0, and every value stayed finite."""
        return self.reason is None

    @property
    def exit_code(self) -> int:
        """The exit code of ``faultlib trace`` (:data:`EXIT_CODES`)."""
        return exit_code_for(self.reason, self.script_exit, found=Reason.NONFINITE)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "complete": self.complete, "reason": self.reason.value if self.reason else None,
                "exit_code": self.exit_code,
                "first_nonfinite": self.first_nonfinite, "replay_step": self.replay_step, "replayed": self.replayed,
                "dump": self.dump, "script_exit": self.script_exit, "stopped_by_trace": self.stopped_by_trace,
                "error": self.error, "tripped_steps": self.tripped_steps, "notes": self.notes,
                "findings": self.findings, "ranks": self.ranks, "first_rank": self.first_rank, "watched": self.watched,
                "children": self.children}


@dataclass
class _Pass:
    """How one run of the script went (see :mod:`faultlib.trace.boot` for the result file)."""

    end: str  # exit | raised | interrupted | stopped | could_not_start
    script_exit: int | None = None
    error: str | None = None
    trip: dict[str, Any] | None = None
    event: dict[str, Any] | None = None
    dump: str | None = None
    dump_error: str | None = None
    tripped_steps: int = 0
    notes: list[str] = field(default_factory=list)
    raw: dict[str, Any] | None = None  # the whole result file (``--asyncio`` reads its own keys from it)
    duration_s: float = 0.0
    children: list[dict[str, Any]] = field(default_factory=list)  # faultlib.trace.family.read_children


# -- the passes ----------------------------------------------------------------------------------
def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _wait(proc: subprocess.Popen, timeout_s: float | None = None) -> tuple[int, bool]:
    """Wait for the script; on Ctrl-C or SIGTERM here, or past ``timeout_s``, interrupt it (SIGINT, then SIGKILL
    after 5 s). Returns its return code and whether it was interrupted."""
    try:
        return proc.wait(timeout=timeout_s), False
    except (KeyboardInterrupt, subprocess.TimeoutExpired):
        pass
    try:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        return proc.wait(timeout=5), True
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        proc.kill()
        return proc.wait(), True


def _run_pass(python: str, script: Path, args: list[str], *, env_extra: dict[str, str], stdout, stderr,
              launcher: str = LAUNCHER, needs: str = "torch and faultlib-ml", timeout_s: float | None = None,
              stdin=subprocess.DEVNULL) -> _Pass:
    """Run the script once under ``launcher`` (``PYTHON -c LAUNCHER SCRIPT ARGS...``) and read its result file;
    past ``timeout_s`` (the replay's bound) it is interrupted."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="faultlib-trace-children-") as kids:  # its Python children report here
        adopted = orphans.adopt()  # children the script leaves unreaped become ours (faultlib.trace.orphans)
        try:
            outcome = _run_pass_once(python, script, args, env_extra={**env_extra, **family.env_for(Path(kids))},
                                     stdout=stdout, stderr=stderr, launcher=launcher, needs=needs,
                                     timeout_s=timeout_s, stdin=stdin)
            orphans.reap(Path(kids), adopted)
        finally:
            if adopted:
                orphans.adopt(False)
        outcome.children = family.read_children(Path(kids))
    outcome.duration_s = time.monotonic() - started
    if timeout_s is not None and outcome.duration_s >= timeout_s and outcome.end == "interrupted":
        outcome.error = f"stopped after {timeout_s:.0f} s, the replay's bound"
    return outcome


def _run_pass_once(python: str, script: Path, args: list[str], *, env_extra: dict[str, str], stdout, stderr,
                   launcher: str, needs: str, timeout_s: float | None, stdin) -> _Pass:
    with tempfile.TemporaryDirectory(prefix="faultlib-trace-") as tmp:
        path = Path(tmp) / "result.json"
        env = {**os.environ, **env_extra, "FAULTLIB_TRACE_RESULT": str(path)}
        try:
            proc = subprocess.Popen([python, "-c", launcher, str(script), *args], env=env, stdout=stdout,
                                    stderr=stderr, stdin=stdin)
        except OSError as exc:
            return _Pass("could_not_start", error=f"{python} could not be run: {exc.strerror or exc}")
        returncode, interrupted = _wait(proc, timeout_s)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raw = None
    if raw is not None and "could_not_start" in raw:
        return _Pass("could_not_start", error=f"{python} cannot import what faultlib trace needs "
                     f"({raw['could_not_start']}): install {needs} for that interpreter, or "
                     "trace with `-- python SCRIPT.py`")
    if raw is None or "end" not in raw:  # the tracer did not finish: killed, os._exit(), or never started
        if returncode < 0:
            return _Pass("interrupted", error=f"killed by {_signal_name(-returncode)}")
        if interrupted:
            return _Pass("interrupted", error="interrupted")
        if raw is None:
            return _Pass("could_not_start", error=f"{python} exited with code {returncode} before the script "
                         "started: see its stderr")
        return _Pass("exit", script_exit=returncode)  # os._exit(n) in the script
    result = _Pass(raw["end"], raw.get("script_exit"), raw.get("error"), raw.get("trip"), raw.get("event"),
                   raw.get("dump"), raw.get("dump_error"), int(raw.get("tripped_steps") or 0),
                   list(raw.get("notes") or []), raw)
    if interrupted and result.end == "exit":
        result.end, result.script_exit, result.error = "interrupted", None, "interrupted"
    return result


# -- the report ----------------------------------------------------------------------------------
def _from_trip(trip: dict[str, Any]) -> dict[str, Any]:
    """``first_nonfinite`` from the watch pass alone: no op; the input if it held a NaN."""
    seen = {"kind": trip.get("kind", "value"), "step": trip["step"], "phase": trip["phase"], "module": trip["module"],
            "seen_in": trip["where"], "batch_index": trip["arm_at"], "file": trip.get("file"), "line": trip.get("line"),
            "op": trip.get("op"), "tensor": trip.get("tensor")}
    if trip.get("input"):
        seen.update(trip["input"], source="input")
    return {k: seen.get(k) for k in FIRST_NONFINITE_FIELDS}


def _watch_report(watch: _Pass) -> TraceReport:
    report = TraceReport(script_exit=watch.script_exit, stopped_by_trace=watch.end == "stopped", error=watch.error,
                         tripped_steps=watch.tripped_steps, findings=list((watch.raw or {}).get("findings") or []))
    failed = {"could_not_start": Reason.COULD_NOT_START, "interrupted": Reason.INTERRUPTED,
              "raised": Reason.SCRIPT_RAISED}.get(watch.end)
    if failed is None and watch.end == "exit" and (watch.script_exit or 0) % 256:
        failed = Reason.SCRIPT_EXIT
    child = family.first_tripped(watch.children, before=watch.trip)  # a child saw one first (or the script none)
    if watch.trip is not None or child is not None:
        report.reason = Reason.NONFINITE
        report.first_nonfinite = _from_trip(watch.trip) if child is None else {
            **_from_trip(child["trip"]), "process": family.process_of(child)}  # a child's value is the answer
        if child is not None and watch.trip is not None:
            report.notes.append(f"the script saw one later, at step {watch.trip['step']} ({watch.trip['where']})")
        if failed is not None:
            report.notes.append(f"the script also failed after it ({failed.value}"
                                + (f": {watch.error}" if watch.error else f", exit code {watch.script_exit}") + ")")
    else:
        report.reason = failed
    report.notes.extend(watch.notes)
    raw = watch.raw or {}
    if "world" not in raw and "spawned_ranks" not in raw:  # a world counts per rank (faultlib.trace.world)
        report.watched = family.watched_total(raw.get("watched"), watch.children)
    if watch.children:
        report.children = [family.public(row) for row in watch.children]
        report.notes.extend(family.summary_notes(watch.children) + (child or {}).get("notes", []))
        report.findings += [f for row in watch.children for f in row.get("findings") or []]
        report.tripped_steps = (child or {}).get("tripped_steps", report.tripped_steps)
    if report.nothing_watched and report.reason is not Reason.NONFINITE:
        report.notes.append(f"{NOTHING_WATCHED}: the script ran no torch.nn module forward and no optimizer step, "
                            "and neither did a Python child it started (children are traced through the "
                            "environment: see `children`)")
    return report


def _add_replay(report: TraceReport, trip: dict[str, Any], replay: _Pass) -> None:
    """Take the replay's answer only when it saw the value at the watch pass's step."""
    step, event = trip["step"], replay.event
    seen = event or replay.trip
    report.replay_step = seen["step"] if seen else None
    first = trip.get("update_step", step)  # the earliest step the value can be from (an update, or unchecked steps)
    if event is not None and (event["step"] == step or (first is not None and first <= event["step"] <= step)):
        seen_in = event.get("seen_in") if trip.get("deferred") else None  # where a checked step shows it
        report.first_nonfinite = {k: {**event, "seen_in": seen_in or trip["where"]}.get(k)
                                  for k in FIRST_NONFINITE_FIELDS}
        report.replayed, report.dump = True, replay.dump
        report.notes.extend(n for n in replay.notes if n not in report.notes)
    elif seen is None and replay.end in ("interrupted", "could_not_start"):
        report.notes.append(f"the replay stopped before it saw the value again ({replay.error}): the op and "
                            "source line are unknown")
    elif seen is not None and event is None and seen["step"] == step:  # the same step, but no op seen making it
        report.notes.append(f"the replay saw the non-finite value again at step {step} ({seen['where']}), but its "
                            "op-level check saw no op make it (made before the check was armed): step "
                            f"{step} is the answer; the op and source line are unknown")
    else:
        what = "a NaN already in the input batch" if trip.get("input") else "a non-finite value"
        again = (f"the replay saw one at step {report.replay_step} instead" if seen else
                 "the replay did not see one again" + (f" (it ended early: {replay.error})" if replay.error else ""))
        report.notes.append(
            f"the first run saw {what} at step {step} (in {trip['where']}), but {again}: the script does not run "
            "the same way twice (seed torch, numpy, random and the DataLoader's generator, and avoid time- or "
            f"os.urandom-based seeds). Step {step} is the first run's answer"
            + ("" if trip.get("input") else "; the op and source line that made it are unknown") + ".")
        if replay.dump:
            report.dump = replay.dump
            report.notes.append(f"the dump holds step {report.replay_step} of the replay, not step {step}")
    if replay.dump_error:
        report.notes.append(f"the dump could not be written: {replay.dump_error}")


def trace_script(command: list[str], *, keep_going: bool = False, dump_dir: Path | None = None,
                 stdout=None, stderr=None, quiet_replay: bool = False,
                 on_replay: Callable[[int, bool, int | None], None] | None = None,
                 on_watch: Callable[..., TraceReport | None] | None = None) -> TraceReport:
    """Trace ``command`` (``["python", "SCRIPT.py", ARGS...]``): the watch pass, then, if it saw a
    non-finite value and was not interrupted, the replay.

    Args:
        command: the interpreter, the script, its arguments. The interpreter must import torch and
            faultlib; a bare ``python``/``python3`` means the interpreter faultlib runs in, any
            other name or path is used as given.
        keep_going: count every step with a non-finite value instead of stopping at the first.
        dump_dir: where to write ``dump.pt`` (default ``.faultlib/trace/<local time>/``).
        stdout, stderr: where the script's output goes (default: inherited).
        quiet_replay: discard the replay's stdout and stderr.
        on_replay: ``fn(step, quiet_replay, from_step)`` before the replay (``from_step``: an earlier step, or None).
        on_watch: called as ``fn(watch, python, script, args, dump_dir)`` after the watch pass; a report it
            returns is the answer (the ranks a ``torch.multiprocessing.spawn`` started: :mod:`faultlib.trace.world`).

    Returns:
        the :class:`TraceReport`; a failure of the script is in it (``reason``), never raised.

    Raises:
        ScriptError: the command is not ``python SCRIPT.py ...`` (a torchrun world:
            :func:`faultlib.trace.world.trace_command`), or the script or interpreter is missing.
        InputError: ``dump_dir`` cannot be written.
        (Both before the script runs.)
    """
    python, script, args = resolve_command(command)
    dump_dir = Path(dump_dir or Path(".faultlib/trace") / time.strftime("%Y%m%dT%H%M%S"))
    check_writable_dir(dump_dir, "--dump-dir")
    keep = {"FAULTLIB_TRACE_CONTINUE": "1"} if keep_going else {}
    watch = _run_pass(python, script, args, env_extra=keep, stdout=stdout, stderr=stderr,
                      stdin=None)  # the first run reads the user's stdin, as the script would; the replay cannot
    if on_watch is not None:
        answer = on_watch(watch, python, script, args, dump_dir)
        if answer is not None:
            return answer
    report = _watch_report(watch)
    child = family.first_tripped(watch.children, before=watch.trip)
    trip = child["trip"] if child is not None else watch.trip
    if trip is None:
        return report
    if watch.end == "interrupted":
        report.notes.append("interrupted before the replay: the op and source line are unknown")
        return report
    if on_replay is not None:
        on_replay(trip["step"], quiet_replay, trip.get("update_step"))  # and the update that may have written it
    env = {"FAULTLIB_TRACE_ARM_AT": str(trip["arm_at"] or 0), "FAULTLIB_TRACE_TRIP_STEP": str(trip["step"]),
           "FAULTLIB_TRACE_DUMP": str((dump_dir / "dump.pt").resolve())}
    if trip.get("arm_step") is not None:  # counted by optimizer steps (see faultlib.trace.lean)
        env["FAULTLIB_TRACE_ARM_STEP"] = str(trip["arm_step"])
    if trip.get("arm_start"):  # made before any model call or step: armed from the script's start
        env["FAULTLIB_TRACE_ARM_START"] = "1"
    if child is not None:  # the script runs again unarmed; only that child is armed (faultlib.trace.children)
        env = {family.ENV_PLAN: family.plan_for(child, dump_dir / "dump.pt")}
    quiet = subprocess.DEVNULL if quiet_replay else None
    margin = _seconds(os.environ.get("FAULTLIB_TRACE_REPLAY_MARGIN_S"), REPLAY_MARGIN_S)
    bound = REPLAY_FACTOR * watch.duration_s + margin  # the first run reached the trip in duration_s
    replay = _run_pass(python, script, args, env_extra=env, stdout=quiet or stdout, stderr=quiet or stderr,
                       timeout_s=bound)
    if child is not None:
        again = family.replayed_row(replay.children, child)
        replay = _Pass("interrupted", error=replay.error or "the child did not run again") if again is None else \
            _Pass(again["end"] or "exit", None, again["error"], again["trip"], again["event"], again["dump"],
                  again["dump_error"], again["tripped_steps"], again["notes"], again)
    _add_replay(report, trip, replay)
    if child is not None:
        report.first_nonfinite["process"] = family.process_of(child)
    return report
