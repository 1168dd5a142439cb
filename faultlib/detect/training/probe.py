"""The resume-equivalence probe: is "stopped at step K and resumed" the same run as the straight one?

:func:`probe_resume` runs a user's training command three times (:func:`probe_resumes`: twice, plus once per
way to resume it), each in its own temporary directory:

Each run works in its own temporary copy of the current directory (``.git`` left out; at most
:data:`MAX_COPY_BYTES`, or only ``output_dir`` beyond), so relative paths keep working and nothing of the
user's is written; the copies are removed at the end.

1. **straight**: to ``steps`` optimizer steps (then the process group is stopped);
2. **preempted**: stopped (SIGKILL to its process group) once it has made ``stop_at`` steps and a new
   checkpoint file (:data:`CHECKPOINT_SUFFIXES`) is on disk and stable;
3. **resumed**: a fresh process in a copy of run 2's directory, the command plus ``resume_arg`` with
   ``{checkpoint}`` replaced by the newest checkpoint file and ``{checkpoint_dir}`` by the folder that holds it
   (Hugging Face ``checkpoint-N/``, accelerate ``save_state``), to the end of the straight run. A script that
   resumes from a fixed place (``--resume`` without a path, ``init_from='resume'``) takes neither.

Each step is observed from inside the process through global optimizer hooks
(:mod:`~faultlib.detect.training.probe_boot`): learning rate, loss scale, loss, a digest of the step's
first batch and of the parameters. The resumed run is aligned to the straight run where its parameters
before its first step equal the straight run's after some step (so the checkpoint's step need not be
known); from there every step is compared and the first difference is a ``resume_diverged`` finding
naming the field and the object responsible (lr: the LR scheduler; loss scale: the GradScaler; data:
the sampler/RNG that orders the data; parameters: model or optimizer state; loss with everything else
equal: the RNG of dropout or augmentation). A resumed run whose first step starts from the straight run's
initial parameters did not resume at all (no resume code, or ``resume_arg`` not understood): that is
``resume_restarted``, even when a seeded script then replays the straight run step for step.
Epoch-based scripts are probed in optimizer steps: ``stop_at`` = epochs x steps per epoch.
Temporary directories are removed at the end.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from faultlib.errors import InputError
from faultlib.findings import Finding, Severity

CHECKPOINT_SUFFIXES = (".pt", ".pth", ".ckpt", ".safetensors", ".bin", ".pth.tar", ".pt.tar")
"""Name endings of the files the probe takes for checkpoints (``.pth.tar``: pytorch/examples' imagenet, MoCo)."""
FIELDS = ("params_before", "data", "lr", "loss_scale", "loss", "params")
BLAME = {"params_before": "model or optimizer state (the parameters the step starts from differ)",
         "data": "the data order (sampler epoch, generator or global RNG state)",
         "lr": "the LR scheduler (its state was not restored, or it restarted)",
         "loss_scale": "the GradScaler (its scale was not restored)",
         "loss": "an RNG used in the forward pass (dropout, augmentation)",
         "params": "the optimizer state (moments, step counts) or the update"}
POLL_S = 0.05


@dataclass
class ProbeReport:
    """What :func:`probe_resume` found (fields of ``check resume --probe --json``)."""

    command: list[str]
    steps: int
    stop_at: int
    findings: list[Finding] = field(default_factory=list)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    checkpoint: str | None = None
    resume_args: list[str] = field(default_factory=list)
    resumed_at: int | None = None
    compared: int = 0
    first_difference: dict[str, Any] | None = None

    def fields(self) -> dict[str, Any]:
        return {"command": self.command, "steps": self.steps, "stop_at": self.stop_at,
                "resume_args": self.resume_args, "runs": self.runs,
                "checkpoint": self.checkpoint, "resumed_at": self.resumed_at, "compared_steps": self.compared,
                "first_difference": self.first_difference}


def summary_lines(fields: dict[str, Any]) -> list[tuple[str, str]]:
    lines = [(name, f"{run['steps']} steps in {run['seconds']:.1f} s ({run['end']})")
             for name, run in fields["runs"].items()]
    if fields["resumed_at"] is not None:
        lines.append(("resumed at", f"straight step {fields['resumed_at']} (from {fields['checkpoint']})"))
    lines.append(("compared", f"{fields['compared_steps']} steps"))
    diff = fields["first_difference"]
    lines.append(("first difference", "not compared" if not fields["compared_steps"] else "none" if diff is None
                  else f"step {diff['step']}: {', '.join(diff['fields'])}"))
    return lines


MTIME_SLACK_S = 0.05
"""File times come from the kernel's coarse clock (one tick, 1-10 ms, behind ``time.time()``): a checkpoint written
just after step K's post-hook can carry an mtime before the time that hook recorded (seconds)."""

MAX_COPY_BYTES = 512 * 2 ** 20
"""Largest working directory the probe copies for each run (beyond it, name the output dir with ``output_dir``)."""


def _command(cmd: list[str]) -> list[str]:
    """The command for the boot module: ``python SCRIPT ARGS`` -> ``python -m ...probe_boot SCRIPT ARGS``."""
    out = list(cmd)
    name = Path(out[0]).name
    if not name.startswith("python") or len(out) < 2 or out[1].startswith("-"):
        raise InputError(f"--probe runs a Python script: the command must be `python SCRIPT.py ARGS...`, got "
                         f"{shlex.join(cmd)!r}", field="CMD")
    return [sys.executable if name.startswith("python") else out[0], "-m", "faultlib.detect.training.probe_boot",
            *out[1:]]


def _tree_bytes(root: Path, limit: int) -> int:
    """Bytes under ``root`` (``.git`` left out), counting stops just past ``limit``."""
    total = 0
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                continue
            if total > limit:
                return total
    return total


def _checkpoints(root: Path, since: float) -> list[Path]:
    found = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            if f.endswith(CHECKPOINT_SUFFIXES) and not p.is_symlink():
                try:
                    if p.stat().st_mtime >= since:
                        found.append(p)
                except OSError:
                    continue
    return sorted(found, key=lambda p: p.stat().st_mtime)


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by the kill
            break
    return lines


def _run(cmd: list[str], cwd: Path, log: Path, *, until: int | Callable[[list[dict]], int], timeout_s: float,
         stop_on_checkpoint: bool = False, end_at: int | None = None, align: Path | None = None) -> dict[str, Any]:
    """Run ``cmd`` in ``cwd`` until ``until`` steps (and, with ``stop_on_checkpoint``, a checkpoint newer than
    that step is on disk and stable) or its end; kill its process group. ``end_at``/``align``: the child holds
    before going past that many steps (``FAULTLIB_PROBE_END``/``FAULTLIB_PROBE_ALIGN`` of
    :mod:`~faultlib.detect.training.probe_boot`). Returns ``{steps, seconds, end, exit_code, checkpoint}``."""
    env = {**os.environ, "FAULTLIB_PROBE_OUT": str(log), "PYTHONUNBUFFERED": "1"}
    for name in ("FAULTLIB_PROBE_HOLD_AT", "FAULTLIB_PROBE_END", "FAULTLIB_PROBE_ALIGN"):
        env.pop(name, None)
    if end_at is not None:
        env["FAULTLIB_PROBE_END"] = str(end_at)
    if align is not None:
        env["FAULTLIB_PROBE_ALIGN"] = str(align)
    if stop_on_checkpoint and isinstance(until, int):
        env["FAULTLIB_PROBE_HOLD_AT"] = str(until)  # the child pauses there until the checkpoint is seen
    started = time.monotonic()
    with open(cwd.parent / f"{cwd.name}.stderr", "wb") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        end, checkpoint, reached_at, seen = "exit", None, None, (None, -1)
        try:
            while proc.poll() is None:
                time.sleep(POLL_S)
                steps = _read(log)
                target = until(steps) if callable(until) else until
                if time.monotonic() - started > timeout_s:
                    end = "timeout"
                    break
                if len(steps) >= target and not stop_on_checkpoint:
                    end = "steps"
                    break
                if stop_on_checkpoint and len(steps) >= target:
                    reached_at = reached_at or steps[target - 1]["t"]
                    found = _checkpoints(cwd, reached_at - MTIME_SLACK_S)
                    if found:
                        size = found[-1].stat().st_size
                        if seen == (found[-1], size):  # stable for one poll: the write is over
                            end, checkpoint = "checkpoint", str(found[-1].relative_to(cwd))
                            break
                        seen = (found[-1], size)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    failed = end == "exit" and proc.returncode != 0
    return {"steps": len(_read(log)), "seconds": time.monotonic() - started, "end": end,
            "exit_code": proc.returncode, "checkpoint": checkpoint,
            "error": _last_line(cwd.parent / f"{cwd.name}.stderr") if failed else None}


def _last_line(path: Path) -> str:
    """The last non-blank line a run wrote on stderr (its exception, argparse's complaint), at most 300
    characters; '' where it wrote nothing."""
    with open(path, "rb") as f:
        f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
        lines = [line.strip() for line in f.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _why(runs: dict[str, dict[str, Any]]) -> str:
    """Why runs ended early: '; the resumed run exited with code 2: LAST STDERR LINE' for each that failed on
    its own (the scripts' stderr is in the temporary directories the probe removes)."""
    return "".join(f"; the {name} run exited with code {run['exit_code']}" + (f": {run['error']}" if run["error"]
                   else " (nothing on stderr)") for name, run in runs.items() if run.get("error") is not None)


def _differs(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) > 1e-6 * max(abs(a), abs(b), 1e-12)
    return a != b


def probe_resume(cmd: list[str], *, steps: int, stop_at: int, resume_arg: str = "--resume {checkpoint}",
                 output_dir: str | None = None, timeout_s: float = 600) -> ProbeReport:
    """Run the probe (module docstring).

    Args:
        cmd: ``["python", "train.py", ARGS...]``.
        steps: optimizer steps of the straight run (and of the resumed run, counted from the start).
        stop_at: stop the preempted run after this many steps, once its next checkpoint is on disk.
        resume_arg: appended to ``cmd`` for the resumed run (split like a shell); ``{checkpoint}``, when
            present, is the checkpoint file's path, ``{checkpoint_dir}`` the folder holding it (a script that
            resumes from a fixed place needs neither).
        output_dir: with a working directory over :data:`MAX_COPY_BYTES`, the one directory (relative to
            the current one) copied for each run.
        timeout_s: per run.

    Returns:
        :class:`ProbeReport`: ``resume_diverged`` at the first step that differs, ``resume_restarted`` when
        the resumed run starts from the initial parameters, or ``probe_failed``.

    Raises:
        InputError: not a ``python SCRIPT`` command, ``stop_at >= steps``, or a working directory too large
            to copy without ``output_dir``.
    """
    return probe_resumes(cmd, steps=steps, stop_at=stop_at, resume_args=[resume_arg], output_dir=output_dir,
                         timeout_s=timeout_s)[0]


def probe_resumes(cmd: list[str], *, steps: int, stop_at: int, resume_args: Sequence[str],
                  output_dir: str | None = None, timeout_s: float = 600) -> list[ProbeReport]:
    """:func:`probe_resume` for several ways to resume the same preempted run (``resume_args``, each as
    ``resume_arg`` there; e.g. the resume command with and without a flag): the straight and preempted runs
    are made once and shared, and each resume gets its own resumed run, from its own copy of the preempted
    run's directory, and its own report (in the order of ``resume_args``). Costs one process per resume plus
    two, against three per resume probed one by one.

    Raises:
        InputError: as :func:`probe_resume`, or no ``resume_args``.
    """
    if stop_at >= steps:
        raise InputError(f"--stop-at ({stop_at}) must be below --steps ({steps})", field="--stop-at")
    if not resume_args:
        raise InputError("no resume argument to probe", field="--resume-arg")
    boot = _command(cmd)
    source = Path.cwd()
    size = _tree_bytes(source, MAX_COPY_BYTES)
    if size > MAX_COPY_BYTES and not output_dir:
        raise InputError(f"the working directory holds more than {MAX_COPY_BYTES // 2 ** 20} MiB: run the probe from a "
                         "smaller directory, or name the directory the script writes with --output-dir", field="CMD")
    base = Path(tempfile.mkdtemp(prefix="faultlib-probe-"))
    try:
        dirs = {name: base / name for name in ("straight", "preempted")}
        for d in dirs.values():  # each run in its own copy: the user's files are never written
            if size <= MAX_COPY_BYTES:
                shutil.copytree(source, d, symlinks=True, ignore=shutil.ignore_patterns(".git"))
            else:
                d.mkdir()
                shutil.copytree(output_dir, d / output_dir, symlinks=True)
        runs = {"straight": _run(boot, dirs["straight"], base / "straight.jsonl", until=steps, timeout_s=timeout_s,
                                 end_at=steps),
                "preempted": _run(boot, dirs["preempted"], base / "preempted.jsonl", until=stop_at,
                                  timeout_s=timeout_s, stop_on_checkpoint=True)}
        reports = [ProbeReport(list(cmd), steps, stop_at, runs={name: dict(run) for name, run in runs.items()})
                   for _ in resume_args]
        ckpt = runs["preempted"]["checkpoint"]
        if ckpt is None:
            preempted = runs["preempted"]
            for report in reports:
                report.findings.append(_failed(f"the preempted run made {preempted['steps']} steps and wrote no "
                                               f"checkpoint after step {stop_at} ({preempted['end']})"
                                               f"{_why(runs)}"))
            return reports
        straight = _read(base / "straight.jsonl")
        after = {s["params"]: s["i"] + 1 for s in straight}

        def remaining(lines: list[dict]) -> int:  # the resumed run only has to reach the straight run's end
            start = after.get(lines[0]["params_before"]) if lines else None
            return steps - start if start is not None else steps

        for i, (report, resume_arg) in enumerate(zip(reports, resume_args)):
            resumed_dir = base / f"resumed-{i}"
            shutil.copytree(dirs["preempted"], resumed_dir, symlinks=True)
            report.checkpoint = ckpt
            report.resume_args = shlex.split(resume_arg)
            where = resumed_dir / Path(ckpt)
            extra = [a.replace("{checkpoint_dir}", str(where.parent)).replace("{checkpoint}", str(where))
                     for a in shlex.split(resume_arg)]
            resumed_log = base / f"resumed-{i}.jsonl"
            report.runs["resumed"] = _run(boot + extra, resumed_dir, resumed_log, until=remaining, timeout_s=timeout_s,
                                          end_at=steps, align=base / "straight.jsonl")
            _compare(report, straight, _read(resumed_log))
        return reports
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _failed(message: str) -> Finding:
    return Finding("resume", Severity.ERROR, message, {}, {}, kind="probe_failed")


def _compare(report: ProbeReport, straight: list[dict], resumed: list[dict]) -> None:
    if not straight or not resumed:
        report.findings.append(_failed(f"no optimizer step observed (straight run {len(straight)}, resumed run "
                                       f"{len(resumed)}){_why(report.runs) or ': does the script step a torch.optim optimizer?'}"))
        return
    after = {s["params"]: s["i"] + 1 for s in straight}
    start = after.get(resumed[0]["params_before"])
    initial = straight[0]["params_before"]
    moved = any(s["params"] != initial for s in straight[:report.stop_at])  # not all of them skipped (GradScaler)
    if moved and resumed[0]["params_before"] == initial:
        report.resumed_at = 0
        report.findings.append(Finding(
            "resume", Severity.ERROR,
            f"the resumed run started from the initial parameters, not from {report.checkpoint} (written after "
            f"step {report.stop_at}): it trained from step 0 again; the script has no resume code, or "
            f"--resume-arg {shlex.join(report.resume_args)!r} is not how it resumes",
            {"step": 0}, {"checkpoint": report.checkpoint, "resume_args": report.resume_args},
            kind="resume_restarted"))
        return
    if start is None:  # the resumed parameters are no straight step's: align by count and blame the parameters
        start = max(0, report.steps - len(resumed)) if len(resumed) < report.steps else 0
    report.resumed_at = start
    for offset, got in enumerate(resumed):
        index = start + offset
        if index >= len(straight):
            break
        want = straight[index]
        report.compared += 1
        diff = [f for f in FIELDS if _differs(want.get(f), got.get(f))]
        if diff:
            first = diff[0]
            report.first_difference = {"step": index, "fields": diff,
                                       "straight": {f: want.get(f) for f in diff}, "resumed": {f: got.get(f) for f in diff}}
            report.findings.append(Finding(
                "resume", Severity.ERROR,
                f"the resumed run differs from the straight run at step {index} ({offset} step(s) after the resume): "
                f"{', '.join(diff)}; responsible: {BLAME[first]}",
                {"step": index}, report.first_difference, kind="resume_diverged"))
            return
