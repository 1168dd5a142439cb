"""Which checkpoint files load, why the others do not, and resuming from the newest one that loads.

:func:`scan` checks every file given (or every checkpoint-named file of a directory) with the one
safe reader, :func:`faultlib.detect.checkpoints.reader.read_checkpoint` (``torch.load(...,
weights_only=True)`` after the bytes are identified, or the safetensors header parser), orders them
newest first (by the step in their names when every name has one, else by modification time), and
reports, as :class:`~faultlib.findings.Finding` objects of the kinds in :data:`KINDS`, each file that
does not load and whether the newest one is among them. :func:`resume_latest` is the library side:
it loads the newest checkpoint that loads and lists the newer ones it skipped.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from faultlib.detect.checkpoints.reader import (
    CHECKPOINT_SUFFIXES, FILE_KINDS, MAX_CHECKPOINT_BYTES, Checkpoint, UnloadableCheckpoint, load_bytes, pickle_globals,
    read_checkpoint)
from faultlib.errors import InputError
from faultlib.findings import Finding, Severity

_STEP_IN_NAME = re.compile(r"(?:^|[^a-z])(?:step|iter|iteration|global_step)[=_-]?(\d+)", re.I)
_NUMBER = re.compile(r"\d+")

__all__ = ["KINDS", "Checkpoint", "CheckpointScan", "CheckpointStatus", "Resume", "UnloadableCheckpoint",
           "checkpoint_files", "inspect_file", "load_bytes", "pickle_globals", "read_checkpoint", "resume_latest",
           "scan", "step_in_name"]

DETECTOR = "checkpoints"
KINDS = {
    **FILE_KINDS,
    "newest_not_loadable": "the newest checkpoint does not load: resuming falls back to an older one",
    "no_loadable_checkpoint": "no checkpoint loads: training would start from scratch",
}



@dataclass(frozen=True)
class CheckpointStatus:
    """Whether one file loads.

    Attributes:
        file: the path as given or found.
        loads: True when it loaded.
        format: ``torch_zip``, ``torch_legacy``, ``safetensors``, ``pickle``, ``torchscript``... or None.
        bytes: size on disk (None when unreadable).
        kind: why it does not load (a :data:`KINDS` key), None when it loads.
        message: the reason, for people ("" when it loads).
        unsafe_globals: globals weights_only=True refuses (``kind == "unsafe_globals"``).
        step: the step in its name (``ckpt-000200.pt`` -> 200, ``epoch=3-step=1000.ckpt`` -> 1000), or None.
        saved_step: the ``step``/``global_step``/``epoch`` number stored inside, when it loads and has one.
        mtime_ns: modification time (ns), None when unreadable.
    """

    file: str
    loads: bool
    format: str | None
    bytes: int | None
    kind: str | None = None
    message: str = ""
    unsafe_globals: list[str] = field(default_factory=list)
    step: int | None = None
    saved_step: int | None = None
    mtime_ns: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "loads": self.loads, "format": self.format, "bytes": self.bytes,
                "kind": self.kind, "message": self.message, "unsafe_globals": list(self.unsafe_globals),
                "step": self.step, "saved_step": self.saved_step}


def step_in_name(name: str) -> int | None:
    """The training step a checkpoint's file name states, or None.

    ``step=N`` / ``step_N`` / ``iter-N`` win; otherwise the last number before the first checkpoint
    suffix (``.ckpt-000200.pt.tmp-4242`` -> 200, not the writer's pid).
    """
    named = _STEP_IN_NAME.findall(name)
    if named:
        return int(named[-1])
    parts = name.split(".")
    stem = []
    for i, part in enumerate(parts):
        if i and part.lower() in CHECKPOINT_SUFFIXES:
            break
        stem.append(part)
    numbers = _NUMBER.findall(".".join(stem))
    return int(numbers[-1]) if numbers else None


def _saved_step(content: Any) -> int | None:
    if isinstance(content, dict):
        for key in ("global_step", "step", "iteration", "iter", "epoch"):
            value = content.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def inspect_file(path: Path | str, *, root: Path | str | None = None,
                 max_bytes: int = MAX_CHECKPOINT_BYTES) -> CheckpointStatus:
    """Load one file and report whether it loads (never raises for a bad file).

    Args:
        path: the file.
        root: when given, ``path`` must stay inside it.
        max_bytes: largest file accepted.

    Returns:
        :class:`CheckpointStatus`.
    """
    path = Path(path)
    name_step = step_in_name(path.name)
    try:
        info = os.lstat(path)
        size, mtime = info.st_size, info.st_mtime_ns
    except OSError:
        size = mtime = None
    try:
        loaded = read_checkpoint(_relative(path, root), root=root, max_bytes=max_bytes)
    except InputError as exc:
        return _failed(path, exc, size, mtime)
    return CheckpointStatus(str(path), True, loaded.format, loaded.size, None, "", [], name_step,
                            _saved_step(loaded.content), mtime)


def _relative(path: Path | str, root: Path | str | None) -> Path | str:
    """``path`` relative to ``root`` (what :func:`faultlib.readers.inside` expects), or as it is."""
    return os.path.relpath(path, root) if root is not None else path


def _failed(path: Path, exc: InputError, size: int | None, mtime: int | None) -> CheckpointStatus:
    if isinstance(exc, UnloadableCheckpoint):
        return CheckpointStatus(str(path), False, exc.format, size, exc.kind, exc.message, exc.unsafe_globals,
                                step_in_name(path.name), None, mtime)
    return CheckpointStatus(str(path), False, None, size, "unreadable", exc.message, [], step_in_name(path.name),
                            None, mtime)


def _named(name: str, message: str) -> str:
    """``message`` about the file ``name``, naming it once (a reader's own message, a symbolic link refused,
    already starts with the name: it read ``d.pt d.pt is a symbolic link``)."""
    return message if message.startswith(f"{name} ") else f"{name} {message}"


def checkpoint_files(directory: Path | str) -> list[Path]:
    """Files in ``directory`` (not below) whose name has a checkpoint suffix anywhere after its first
    character (``.pt``, ``.pth``, ``.ckpt``, ``.bin``, ``.safetensors``, ``.tar``, ``.pkl``), temporary
    files of interrupted writes (``.ckpt-000200.pt.tmp-4242``) included; symlinks too (reported, never followed).

    Raises:
        InputError: ``directory`` is not a directory.
    """
    directory = Path(directory)
    if not directory.is_dir() or directory.is_symlink():
        raise InputError("is not a directory", path=str(directory))
    found = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        parts = entry.name.lstrip(".").split(".")[1:]
        if any(p.lower() in CHECKPOINT_SUFFIXES for p in parts) and not entry.is_dir(follow_symlinks=False):
            found.append(Path(entry.path))
    return found


def _newest_first(statuses: list[CheckpointStatus]) -> tuple[list[CheckpointStatus], str]:
    if statuses and all(s.step is not None for s in statuses):
        return sorted(statuses, key=lambda s: (s.step, s.mtime_ns or 0, s.file), reverse=True), "step"
    return sorted(statuses, key=lambda s: (s.mtime_ns or 0, s.file), reverse=True), "mtime"


@dataclass
class CheckpointScan:
    """Every file of :func:`scan`, newest first.

    Attributes:
        files: one :class:`CheckpointStatus` per file, newest first.
        order: ``step`` (every name states a step) or ``mtime`` (modification time).
    """

    files: list[CheckpointStatus]
    order: str

    @property
    def newest(self) -> CheckpointStatus | None:
        return self.files[0] if self.files else None

    @property
    def newest_loadable(self) -> CheckpointStatus | None:
        """The file to resume from: the newest that loads."""
        return next((s for s in self.files if s.loads), None)

    def findings(self) -> list[Finding]:
        """One error per file that does not load, plus ``newest_not_loadable`` / ``no_loadable_checkpoint``."""
        out = [Finding(DETECTOR, Severity.ERROR, _named(Path(s.file).name, s.message), {"file": s.file},
                       {"format": s.format, "bytes": s.bytes, "unsafe_globals": s.unsafe_globals, "step": s.step},
                       kind=s.kind or "corrupt") for s in self.files if not s.loads]
        best, newest = self.newest_loadable, self.newest
        if best is None and self.files:
            out.append(Finding(DETECTOR, Severity.CRITICAL, f"none of the {len(self.files)} files loads: training "
                               "would start from scratch", {}, {"files": len(self.files)},
                               kind="no_loadable_checkpoint"))
        elif best is not None and newest is not None and newest is not best:
            skipped = [Path(s.file).name for s in self.files[:self.files.index(best)]]
            out.append(Finding(DETECTOR, Severity.WARNING,
                               f"the newest checkpoint {Path(newest.file).name} does not load; resume from "
                               f"{Path(best.file).name}" + (f" (step {best.step})" if best.step is not None else ""),
                               {"file": newest.file}, {"resume_from": best.file, "skipped": skipped},
                               kind="newest_not_loadable"))
        return out

    def fields(self) -> dict[str, Any]:
        best = self.newest_loadable
        return {"files": [s.to_json() for s in self.files], "order": self.order,
                "newest": self.newest.file if self.newest else None,
                "newest_loadable": ({"file": best.file, "step": best.step, "saved_step": best.saved_step}
                                    if best else None)}


def scan(targets: Iterable[Path | str], *, max_bytes: int = MAX_CHECKPOINT_BYTES) -> CheckpointScan:
    """Check every file of the given files and directories (see :func:`checkpoint_files`).

    Args:
        targets: files and directories.
        max_bytes: largest file accepted.

    Returns:
        :class:`CheckpointScan`, newest first.

    Raises:
        InputError: a target does not exist, or a directory holds no checkpoint file.
    """
    statuses: list[CheckpointStatus] = []
    for target in targets:
        target = Path(target)
        if target.is_dir() and not target.is_symlink():
            files = checkpoint_files(target)
            if not files:
                raise InputError(f"holds no checkpoint files (names with {', '.join(sorted(CHECKPOINT_SUFFIXES))})",
                                 path=str(target))
            statuses.extend(inspect_file(f, root=target, max_bytes=max_bytes) for f in files)
        elif target.exists() or target.is_symlink():
            statuses.append(inspect_file(target, max_bytes=max_bytes))
        else:
            raise InputError("file not found", path=str(target))
    ordered, order = _newest_first(statuses)
    return CheckpointScan(ordered, order)


@dataclass
class Resume:
    """What :func:`resume_latest` found.

    Attributes:
        checkpoint: the newest checkpoint that loads.
        step: the step in its name (None when the name has none).
        skipped: newer files that did not load, newest first, each with why.
    """

    checkpoint: Checkpoint
    step: int | None
    skipped: list[CheckpointStatus]


def resume_latest(directory: Path | str, *, max_bytes: int = MAX_CHECKPOINT_BYTES) -> Resume | None:
    """Load the newest checkpoint in ``directory`` that loads, skipping (and reporting) newer ones that do not.

    Files are ordered by the step in their names when every name has one, else by modification time
    (see :func:`checkpoint_files` for which files count). Each is loaded as :func:`read_checkpoint`
    does, newest first, until one loads; older files are not read.

    Args:
        directory: the checkpoint directory; a missing one means a fresh start (returns None).
        max_bytes: largest file accepted.

    Returns:
        :class:`Resume`, or None when the directory is missing or nothing in it loads (the skipped
        files are then lost to the caller: use :func:`scan` to report them).

    Raises:
        InputError: ``directory`` exists but is not a directory.
    """
    directory = Path(directory)
    if not directory.exists():
        return None
    candidates = []
    for path in checkpoint_files(directory):
        try:
            info = os.lstat(path)
            size, mtime = info.st_size, info.st_mtime_ns
        except OSError:
            size = mtime = None
        candidates.append(CheckpointStatus(str(path), False, None, size, step=step_in_name(path.name),
                                           mtime_ns=mtime))
    ordered, _ = _newest_first(candidates)
    skipped: list[CheckpointStatus] = []
    for candidate in ordered:
        try:
            loaded = read_checkpoint(_relative(candidate.file, directory), root=directory, max_bytes=max_bytes)
        except InputError as exc:
            skipped.append(_failed(Path(candidate.file), exc, candidate.bytes, candidate.mtime_ns))
            continue
        loaded.path = Path(candidate.file)
        return Resume(loaded, candidate.step, skipped)
    return None
