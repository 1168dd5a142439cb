"""``faultlib check memory SNAPSHOT.pickle [--png OUT.png]``: GPU memory fragmentation in a memory snapshot.

SNAPSHOT is what ``torch.cuda.memory._dump_snapshot(path)`` writes (record the history first with
``torch.cuda.memory._record_memory_history(max_entries=100_000)`` to get the timeline). It is read
with a restricted unpickler that builds only builtin containers and scalars: a pickle that needs any
global (a class, a function) is refused, naming it, and nothing in it runs. The analysis needs no
GPU and no torch (see :mod:`faultlib.detect.serving.memory.snapshot` and :mod:`faultlib.detect.serving.memory.analysis`).

JSON fields (besides ``detector``, ``ok``, ``findings``), bytes in bytes:

- ``snapshot``: ``{path, bytes, devices, trace_entries, segments}``; ``device``: the device analysed;
- ``state``: at the snapshot, ``{reserved_bytes, allocated_bytes, split_free_bytes, releasable_bytes,
  fragmentation, largest_free_piece_bytes, free_pieces, segments, split_segments, by_pool}``;
- ``timeline``: ``[{index, time_us, reserved_bytes, allocated_bytes, split_free_bytes, fragmentation}]``
  (at most ``--points``; ``index``: trace entries applied); ``peak``: ``{fragmentation, index, time_us,
  window_points}``;
- ``events``: count per trace action and ``unknown_references``;
- ``unusable_free_memory``: ``{count, examples}``; ``ooms``: ``[...]``; ``cache_flush``:
  ``{segment_frees, bursts, freed_bytes, segment_allocs_after}``;
- ``thresholds``: ``{fragmentation, min_reserved_bytes}``; ``png``: the heatmap written, or ``null``.

Exit codes: 0 when no finding reaches ``--fail-on``, 1 when one does, 2 for a file that is not a
readable snapshot (unsafe globals, truncated or corrupt pickle, wrong shape: file and field), a
``--png`` path that cannot be written, a device the snapshot lacks, or matplotlib missing for ``--png``.
"""

from __future__ import annotations

from pathlib import Path

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.readers.options import FiniteFloat

__getattr__ = lazy_kinds("faultlib.detect.serving.memory.snapshot")
__all__ = ["KINDS", "command"]
MiB = 1 << 20


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    s = f["state"]
    lines = [("snapshot", f"{f['snapshot']['path']}: device {f['device']} of {f['snapshot']['devices'] or [0]}, "
                          f"{f['snapshot']['segments']} segments, {f['snapshot']['trace_entries']} trace entries"),
             ("at the snapshot", f"{s['reserved_bytes'] / MiB:.1f} MiB reserved, {s['allocated_bytes'] / MiB:.1f} MiB "
                                 f"allocated, {s['split_free_bytes'] / MiB:.1f} MiB free in {s['free_pieces']} split "
                                 f"pieces (largest {s['largest_free_piece_bytes'] / MiB:.1f} MiB), "
                                 f"{s['releasable_bytes'] / MiB:.1f} MiB releasable"),
             ("fragmentation", f"{s['fragmentation']:.1%} at the snapshot, peak {f['peak']['fragmentation']:.1%} "
                               f"(threshold {f['thresholds']['fragmentation']:.0%})")]
    if f["png"]:
        lines.append(("heatmap", f["png"]))
    return lines


@check_command("memory", summary=_summary,
               help="GPU memory fragmentation in a torch.cuda.memory snapshot pickle (read without running any code "
                    "in it): split free memory over time, requests that needed a new segment despite enough free "
                    "memory, OOMs, cache flushes; --png draws a heatmap (time x address offset).")
@click.argument("snapshot", metavar="SNAPSHOT.pickle", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--png", "png", type=click.Path(path_type=Path), default=None, metavar="OUT.png",
              help="Write a heatmap of the allocated share of reserved memory (time x address offset) with the "
                   "fragmentation timeline below it (matplotlib, Agg).")
@click.option("--device", type=click.IntRange(min=0), default=None,
              help="CUDA device index to analyse (default: the one with the most segments and trace entries).")
@click.option("--threshold", type=FiniteFloat(0, 1), default=0.15, show_default=True,
              help="Fragmentation (split free / reserved) at or above which memory counts as fragmented.")
@click.option("--min-reserved-mib", type=FiniteFloat(0, min_open=False), default=64.0, show_default=True,
              help="Below this much reserved memory nothing is reported as fragmented.")
@click.option("--points", type=click.IntRange(min=2, max=5000), default=240, show_default=True,
              help="Timeline points (and heatmap columns).")
def command(snapshot: Path, png: Path | None, device: int | None, threshold: float, min_reserved_mib: float,
            points: int) -> CheckResult:
    """Analyse SNAPSHOT (see the module docstring).

    Raises:
        InputError: an unreadable, unsafe or malformed snapshot, an unwritable --png, or an absent device (exit 2).
        MissingDependency: matplotlib (for --png) or numpy is not installed (exit 2).
    """
    from faultlib.detect.serving.memory.analysis import analyse_snapshot, check_png_path, render_png
    from faultlib.detect.serving.memory.snapshot import load_snapshot
    from faultlib.errors import require

    if png is not None:  # before anything is read or written
        png = check_png_path(png)
        require("matplotlib", "memory")
    report = analyse_snapshot(load_snapshot(snapshot), device=device, threshold=threshold,
                              min_reserved_bytes=int(min_reserved_mib * MiB), points=points, heatmap=png is not None)
    fields = report.fields()
    fields["png"] = str(render_png(report, png)) if png is not None else None
    return CheckResult("memory", list(report.findings), fields)
