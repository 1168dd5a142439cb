"""``faultlib trace -- torchrun ... SCRIPT.py ARGS`` (or ``python -m torch.distributed.run ...``): every rank watched.

The command runs as ``PYTHON -m torch.distributed.run OPTIONS --module faultlib.trace.rank SCRIPT ARGS``: torchrun
starts each worker in :mod:`faultlib.trace.rank`, which runs the script under the tracer of
:mod:`faultlib.trace.boot` with the collectives checked (:class:`faultlib.detect.distributed.nonfinite.
CollectiveNonFiniteWatch`). A rank that finds a value stops at the end of that optimizer step, where every rank
that received it through the step's all-reduce stops too; when some ranks stop and the others go on past
:data:`WORLD_GRACE_S` (they would wait in the next collective), the world is ended.

The merged report (:func:`faultlib.detect.distributed.nonfinite.first_culprit`) names the rank that produced the
value first; the others only received it (through which collective: op, process group, sequence number). The
replay runs the world again with that rank armed (op, module, line, dump ``<dump dir>/rank<R>/dump.pt``); every
rank's result is kept in ``<dump dir>/rank<R>.json``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from faultlib.errors import ScriptError
from faultlib.trace import torchrun_args
from faultlib.trace.session import (REPLAY_FACTOR, REPLAY_MARGIN_S, Reason, TraceReport, _add_replay, _from_trip,
                                    _Pass, _run_pass, _seconds, check_writable_dir,
                                    resolve_command,
                                    trace_script)

WORLD_GRACE_S = 10.0
"""Seconds the other ranks may run on once a rank stopped at its value before the world is ended
(``FAULTLIB_TRACE_WORLD_GRACE_S`` sets another)."""
_REFUSED = ("module", "no_python", "run_path")


def is_world_command(command: list[str]) -> bool:
    """``torchrun ...`` or ``python -m torch.distributed.run ...``."""
    if not command:
        return False
    if Path(command[0]).name == "torchrun":
        return True
    return Path(command[0]).name.startswith("python") and command[1:3] == ["-m", "torch.distributed.run"]


#: the words torchrun accepts for --nproc-per-node besides a number (torch/distributed/run.py, determine_local_world_size)
_NPROC_WORDS = frozenset({"auto", "cpu", "gpu", "xpu"})


def resolve_world(command: list[str]) -> tuple[str, list[str], Path, list[str]]:
    """Split a torchrun command into (python, torchrun options, script, script args), parsed by torchrun's own
    parser (``torch.distributed.run.get_args_parser``).

    Raises:
        ScriptError: no script, a script that is not ``.py`` or missing, an ``--nproc-per-node`` torchrun refuses, ``--module``/``--no-python``/``--run-path``
            (trace needs the script), an interpreter that does not exist.
    """
    if Path(command[0]).name == "torchrun":
        python, rest = "python", command[1:]
        if os.sep in command[0]:  # /venv/bin/torchrun: the python beside it
            sibling = Path(command[0]).parent / "python"
            python = str(sibling) if sibling.exists() else "python"
    else:
        python, rest = command[0], command[3:]
    parsed = _split_world(rest)
    nproc = parsed.nproc_per_node
    if not (nproc in _NPROC_WORDS or (nproc.isdigit() and int(nproc) > 0)):
        raise ScriptError(f"--nproc-per-node {nproc!r}: expected a positive number of processes or one of "
                          f"{', '.join(sorted(_NPROC_WORDS))} (torchrun's values)")
    if parsed.refused:
        raise ScriptError(f"faultlib trace runs a script: drop --{parsed.refused[0].replace('_', '-')} and pass "
                          "SCRIPT.py")
    python, script, args = resolve_command([python, parsed.script, *parsed.script_args])
    return python, parsed.options, script, args


def _split_world(rest: list[str]) -> torchrun_args.Split:
    """torchrun's arguments split by :func:`faultlib.trace.torchrun_args.split` (no torch import), else by torch's
    own parser (``torch.distributed.run.get_args_parser``).

    Raises:
        ScriptError: torchrun's parser refuses them, or the script cannot be found among them.
    """
    quick = torchrun_args.split(rest)
    if quick is not None:
        return quick
    from torch.distributed.run import get_args_parser

    try:
        parsed = get_args_parser().parse_args(rest)
    except SystemExit as exc:
        raise ScriptError(f"torchrun cannot parse `{' '.join(rest)}` (exit {exc.code}): expected "
                          "`torchrun OPTIONS SCRIPT.py ARGS...`") from None
    index = len(rest) - len(parsed.training_script_args) - 1
    if index < 0 or rest[index] != parsed.training_script:
        raise ScriptError(f"cannot find the script in `{' '.join(rest)}`: put torchrun's options before SCRIPT.py")
    return torchrun_args.Split(rest[:index], rest[index], rest[index + 1:], str(parsed.nproc_per_node),
                               str(parsed.nnodes), [name for name in _REFUSED if getattr(parsed, name, False)])


def _read_ranks(folder: Path) -> dict[int, dict[str, Any]]:
    ranks = {}
    for path in folder.glob("rank*.json"):
        try:
            ranks[int(path.stem[4:])] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # being replaced: read at the next poll
    return ranks


def _end_world(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def _run_world(python: str, options: list[str], script: Path, args: list[str], *, env_extra: dict[str, str],
               stdout, stderr, timeout_s: float | None = None) -> tuple[int | None, str | None, dict[int, dict]]:
    """Run the world once; return torchrun's exit code, why faultlib ended it (or None) and each rank's result."""
    grace = _seconds(os.environ.get("FAULTLIB_TRACE_WORLD_GRACE_S"), WORLD_GRACE_S)
    with tempfile.TemporaryDirectory(prefix="faultlib-trace-world-") as tmp:
        env = {**os.environ, **env_extra, "FAULTLIB_TRACE_RESULT_DIR": tmp}
        argv = [python, "-m", "torch.distributed.run", *options, "--module", "faultlib.trace.rank", str(script), *args]
        try:
            proc = subprocess.Popen(argv, env=env, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                    start_new_session=True)  # its own group: the whole world is ended at once
        except OSError as exc:
            return None, f"{python} could not be run: {exc.strerror or exc}", {}
        started, stopped_at, ended = time.monotonic(), None, None
        try:
            while proc.poll() is None:
                time.sleep(0.2)
                if stopped_at is None and any(r.get("end") == "stopped" for r in _read_ranks(Path(tmp)).values()):
                    stopped_at = time.monotonic()
                if stopped_at is not None and time.monotonic() - stopped_at > grace:
                    ended = f"a rank stopped at its value and the others ran on for {grace:g} s: world ended"
                elif timeout_s is not None and time.monotonic() - started > timeout_s:
                    ended = f"stopped after {timeout_s:.0f} s, the replay's bound"
                if ended:
                    break
        except KeyboardInterrupt:
            ended = "interrupted"
        if ended:
            _end_world(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _end_world(proc, signal.SIGKILL)
                proc.wait()
        return proc.returncode, ended, _read_ranks(Path(tmp))


_PEER_LOST = ("Connection closed by peer", "Connection reset by peer", "remote worker", "DistBackendError",
              "Broken pipe", "NCCL communicator was aborted")


def _peer_lost(error: str | None) -> bool:
    """The rank died because another rank did (the backend lost its peer): not the world's first failure."""
    return bool(error) and any(marker in error for marker in _PEER_LOST)


def _rank_pass(raw: dict[str, Any] | None, ended: str | None) -> _Pass:
    if raw is None or "end" not in raw:
        return _Pass("interrupted", error=ended or "the rank ended before its result was written",
                     trip=(raw or {}).get("trip"), raw=raw)
    return _Pass(raw["end"], raw.get("script_exit"), raw.get("error"), raw.get("trip"), raw.get("event"),
                 raw.get("dump"), raw.get("dump_error"), int(raw.get("tripped_steps") or 0),
                 list(raw.get("notes") or []), raw)


def _rank_row(rank: int, merged: dict[str, Any], one: _Pass) -> dict[str, Any]:
    trip = one.trip or {}
    return {"rank": rank, "role": merged["role"], "step": trip.get("step"), "phase": trip.get("phase"),
            "module": trip.get("module"), "seen_in": trip.get("where"), "received": merged["received"],
            "sent": merged["sent"], "end": one.end, "script_exit": one.script_exit, "error": one.error}


def _world_report(ranks: dict[int, dict], code: int | None, ended: str | None, world_size: int) -> tuple[
        TraceReport, dict[int, _Pass], dict[str, Any]]:
    from faultlib.detect.distributed.nonfinite import first_culprit

    passes = {r: _rank_pass(ranks.get(r), ended) for r in range(world_size)}
    summaries = [{"rank": r, **{k: v for k, v in ((p.raw or {}).get("world") or {}).items() if k != "rank"}}
                 for r, p in passes.items()]
    culprit = first_culprit(summaries)
    report = TraceReport(script_exit=code, stopped_by_trace=any(p.end == "stopped" for p in passes.values()))
    report.ranks = [_rank_row(m["rank"], m, passes[m["rank"]]) for m in culprit["ranks"]]
    report.first_rank = culprit["first_rank"]
    report.findings = [f for p in passes.values() for f in ((p.raw or {}).get("findings") or [])]
    tripped = [r for r, p in passes.items() if p.trip is not None]
    if tripped:
        report.reason = Reason.NONFINITE
        report.script_exit = None if report.stopped_by_trace else code
        rank = culprit["first_rank"] if culprit["first_rank"] is not None else tripped[0]
        report.first_nonfinite = {**_from_trip(passes[rank].trip), "rank": rank}
        report.tripped_steps = max(p.tripped_steps for p in passes.values())
        if culprit["source"] == "collective":
            got = passes[rank].raw["world"]["received"]
            report.first_nonfinite.update(op=got["op"], source="collective", seen_in=f"{got['op']} seq {got['seq']}")
            report.notes.append(f"every rank's inputs to {got['op']} seq {got['seq']} were finite and its output "
                                "was not: the collective made the value (the reduction overflowed)")
        if ended and not ended.startswith("a rank stopped"):
            report.notes.append(ended)
        return report, passes, culprit
    failed = sorted(((r, p) for r, p in passes.items() if p.end in ("raised", "interrupted", "could_not_start")
                     or (p.end == "exit" and (p.script_exit or 0) % 256)),
                    key=lambda rp: (rp[1].end == "interrupted", _peer_lost(rp[1].error), rp[0]))
    if not ranks:
        report.reason, report.script_exit = Reason.COULD_NOT_START, None
        report.error = ended or f"torchrun exited with code {code} before any rank started: see its stderr"
    elif failed:
        rank, first = failed[0]
        report.reason = {"raised": Reason.SCRIPT_RAISED, "interrupted": Reason.INTERRUPTED,
                         "could_not_start": Reason.COULD_NOT_START}.get(first.end, Reason.SCRIPT_EXIT)
        report.script_exit = first.script_exit if report.reason is Reason.SCRIPT_EXIT else None
        report.error = f"rank {rank}: {(first.error or f'exit code {first.script_exit}').splitlines()[0]}"
    elif code:  # every rank ran to its end, yet torchrun failed (rendezvous, a worker it lost)
        report.reason, report.script_exit = Reason.SCRIPT_EXIT, None
        report.error = ended or f"torchrun exited with code {code}"
    for p in passes.values():
        report.notes.extend(n for n in p.notes if n not in report.notes)
    return report, passes, culprit


def _write_rank_files(dump_dir: Path, ranks: dict[int, dict]) -> None:
    from faultlib.outputs import replace_file  # never through a link planted at rank<R>.json

    dump_dir.mkdir(parents=True, exist_ok=True)
    for rank, raw in ranks.items():
        replace_file(dump_dir / f"rank{rank}.json", json.dumps(raw, indent=1, default=str).encode(), fsync=False)


def trace_world(command: list[str], *, keep_going: bool = False, dump_dir: Path | None = None, stdout=None,
                stderr=None, quiet_replay: bool = False,
                on_replay: Callable[[int, bool, int | None], None] | None = None) -> TraceReport:
    """Trace a torchrun world (see the module docstring); arguments as
    :func:`faultlib.trace.session.trace_script`.

    Raises:
        ScriptError, InputError: as :func:`~faultlib.trace.session.trace_script`, before the world starts.
    """
    python, launcher_options, script, args = resolve_world(command)
    dump_dir = Path(dump_dir or Path(".faultlib/trace") / time.strftime("%Y%m%dT%H%M%S"))
    check_writable_dir(dump_dir, "--dump-dir")
    parsed = _split_world([*launcher_options, str(script)])
    nproc, nnodes = parsed.nproc_per_node, parsed.nnodes
    world_size = int(nproc) * int(nnodes.split(":")[-1]) if nproc.isdigit() and nnodes.split(":")[-1].isdigit() \
        else 1
    keep = {"FAULTLIB_TRACE_CONTINUE": "1"} if keep_going else {}
    started = time.monotonic()
    code, ended, ranks = _run_world(python, launcher_options, script, args, env_extra=keep, stdout=stdout,
                                    stderr=stderr)
    duration = time.monotonic() - started
    report, passes, culprit = _world_report(ranks, code, ended, max(world_size, len(ranks)))
    _write_rank_files(dump_dir, ranks)
    options = {"stdout": stdout, "stderr": stderr, "quiet_replay": quiet_replay, "on_replay": on_replay}

    def again(env: dict[str, str], out, err, bound: float) -> tuple[str | None, dict[int, dict]]:
        _, replay_ended, replay_ranks = _run_world(python, launcher_options, script, args, env_extra=env,
                                                   stdout=out, stderr=err, timeout_s=bound)
        return replay_ended, replay_ranks

    if ended == "interrupted":
        report.dump = str(dump_dir.resolve())
        return report
    return _replay_world(report, passes, dump_dir, duration, options, again)


def _replay_world(report: TraceReport, passes: dict[int, _Pass], dump_dir: Path, duration: float,
                  options: dict[str, Any], run_again: Callable) -> TraceReport:
    """The world again with the producing rank armed; its answer (op, module, line, dump) into ``report``."""
    report.dump = str(dump_dir.resolve())
    if report.reason is not Reason.NONFINITE or report.first_rank is None:
        return report
    rank = report.first_rank
    trip = passes[rank].trip
    if options.get("on_replay") is not None:
        options["on_replay"](trip["step"], options.get("quiet_replay", False), trip.get("update_step"))
    plan = {str(rank): {"arm_at": trip["arm_at"], "trip_step": trip["step"],
                        "dump": str((dump_dir / f"rank{rank}" / "dump.pt").resolve())}}
    quiet = subprocess.DEVNULL if options.get("quiet_replay") else None
    bound = REPLAY_FACTOR * duration + _seconds(os.environ.get("FAULTLIB_TRACE_REPLAY_MARGIN_S"), REPLAY_MARGIN_S)
    replay_ended, replay_ranks = run_again({"FAULTLIB_TRACE_PLAN": json.dumps(plan)}, quiet or options.get("stdout"),
                                           quiet or options.get("stderr"), bound)
    replay = _rank_pass(replay_ranks.get(rank), replay_ended)
    first = report.first_nonfinite
    _add_replay(report, trip, replay)
    report.first_nonfinite = {**(report.first_nonfinite or first), "rank": rank}
    if not report.replayed:
        report.dump = str(dump_dir.resolve())
    return report


def trace_command(command: list[str], **options: Any) -> TraceReport:
    """``faultlib trace -- COMMAND``: a torchrun world (:func:`trace_world`) or one process
    (:func:`faultlib.trace.session.trace_script`); ``options`` as theirs."""
    if is_world_command(command):
        return trace_world(command, **options)

    def spawned(watch: _Pass, python: str, script: Path, args: list[str], dump_dir: Path) -> TraceReport | None:
        ranks = {int(r): raw for r, raw in ((watch.raw or {}).get("spawned_ranks") or {}).items()}
        if not ranks:
            return None
        code = watch.script_exit if watch.end == "exit" else None
        report, passes, _ = _world_report(ranks, code, None, len(ranks))
        if report.reason is None and (watch.end != "exit" or (watch.script_exit or 0) % 256):
            report.reason = {"raised": Reason.SCRIPT_RAISED, "interrupted": Reason.INTERRUPTED,
                             "could_not_start": Reason.COULD_NOT_START}.get(watch.end, Reason.SCRIPT_EXIT)
            report.error, report.script_exit = watch.error, watch.script_exit
        _write_rank_files(dump_dir, ranks)
        return _replay_world(report, passes, dump_dir, watch.duration_s, options,
                             lambda env, out, err, bound: _spawned_pass(python, script, args, env, out, err, bound))

    return trace_script(command, **options, on_watch=spawned)


def _spawned_pass(python: str, script: Path, args: list[str], env: dict[str, str], stdout, stderr,
                  bound: float) -> tuple[str | None, dict[int, dict]]:
    replay = _run_pass(python, script, args, env_extra=env, stdout=stdout, stderr=stderr, timeout_s=bound)
    ranks = {int(r): raw for r, raw in ((replay.raw or {}).get("spawned_ranks") or {}).items()}
    return (replay.error if replay.end == "interrupted" else None), ranks
