"""Atomic training checkpoints: a kill at any instant leaves only complete checkpoints behind.

A checkpoint for step S (S steps done) is published as ``ckpt-{S:06d}.pt`` by the classic
sequence (see rename(2) and fsync(2)):

1. serialise the state with ``torch.save`` into memory;
2. write it to a temporary file **in the same directory** (``.ckpt-{S:06d}.pt.tmp-{pid}``),
   flush, ``os.fsync`` the file;
3. ``os.replace`` the temporary file onto the final name (atomic on POSIX: readers see the
   old directory entry or the new one, never a half-written file);
4. ``os.fsync`` the directory, so the rename itself survives a power cut.

Only names matching ``ckpt-NNNNNN.pt`` are ever loaded, newest first, always with
``torch.load(..., weights_only=True)`` (no pickled code runs). Temporary files left by a
killed writer are never candidates; :func:`quarantine_partials` moves them aside for the
post-mortem.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable

CHECKPOINT_NAME = re.compile(r"^ckpt-(\d{6})\.pt$")
PARTIAL_NAME = re.compile(r"^\.ckpt-(\d{6})\.pt\.tmp-\d+$")


def checkpoint_path(directory: Path, step: int) -> Path:
    return directory / f"ckpt-{step:06d}.pt"


def save_atomic(state: dict[str, Any], directory: Path, step: int, *,
                mid_write: Callable[[int, int], None] | None = None) -> tuple[Path, int]:
    """Publish ``state`` as the checkpoint of ``step`` atomically.

    Args:
        state: tensors and plain Python values only (what ``weights_only=True`` loads back).
        directory: the checkpoint directory (created if missing).
        step: steps completed; names the file.
        mid_write: called as ``mid_write(bytes_written, bytes_total)`` after the first half of
            the file is written and flushed, before the rest, the fsync and the rename: the
            fault point where a preemption does the most harm.

    Returns:
        (final path, size in bytes).
    """
    import torch

    directory.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    data = buffer.getvalue()
    final = checkpoint_path(directory, step)
    temp = directory / f".{final.name}.tmp-{os.getpid()}"
    half = len(data) // 2
    with open(temp, "wb") as fh:
        fh.write(data[:half])
        fh.flush()
        if mid_write is not None:
            mid_write(half, len(data))
        fh.write(data[half:])
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(temp, final)
    fsync_dir(directory)
    return final, len(data)


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX: fsync the directory itself)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def complete_checkpoints(directory: Path) -> list[tuple[int, Path]]:
    """Published checkpoints as (step, path), oldest first; temporary files are never listed."""
    if not directory.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in directory.iterdir() if (m := CHECKPOINT_NAME.match(p.name))]
    return sorted(found)


def partial_files(directory: Path) -> list[Path]:
    """Temporary files a killed writer left behind (never loadable as checkpoints)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if PARTIAL_NAME.match(p.name))


def load(path: Path) -> dict[str, Any]:
    """Load one checkpoint with ``weights_only=True`` onto the CPU."""
    import torch

    return torch.load(path, map_location="cpu", weights_only=True)


def load_latest(directory: Path) -> tuple[tuple[int, Path, dict[str, Any]] | None, list[tuple[Path, str]]]:
    """The newest published checkpoint that loads, and the published ones that did not.

    Returns:
        ``((step, path, state) or None, unreadable)``; ``unreadable`` lists (path, error) of
        published checkpoints that failed to load, newest first. With :func:`save_atomic` it
        stays empty, whatever instant a kill lands at.
    """
    unreadable: list[tuple[Path, str]] = []
    for step, path in reversed(complete_checkpoints(directory)):
        try:
            return (step, path, load(path)), unreadable
        except Exception as exc:  # noqa: BLE001 - a damaged file: fall back to the previous checkpoint
            unreadable.append((path, f"{type(exc).__name__}: {exc}"))
    return None, unreadable


def prune(directory: Path, keep_last: int) -> list[Path]:
    """Delete all but the newest ``keep_last`` published checkpoints; returns what was deleted.
    Call it only after the newest one is durable (after :func:`save_atomic` returned)."""
    doomed = [path for _, path in complete_checkpoints(directory)[:-keep_last]] if keep_last > 0 else []
    for path in doomed:
        path.unlink()
    if doomed:
        fsync_dir(directory)
    return doomed


def quarantine_partials(directory: Path) -> list[tuple[str, int]]:
    """Move temporary files of interrupted writes into ``directory/partial/``; returns (name, bytes)."""
    moved = []
    for path in partial_files(directory):
        size = path.stat().st_size
        target = directory / "partial"
        target.mkdir(exist_ok=True)
        shutil.move(str(path), target / path.name)
        moved.append((path.name, size))
    return moved
