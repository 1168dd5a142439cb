"""GPU memory (``serving.gpu_memory``): allocator fragmentation, live and offline.

- :class:`MemoryMonitor` (:mod:`.monitor`): samples the CUDA caching allocator's statistics per step and
  reports fragmentation that grows with throughput loss;
- :func:`load_snapshot` (:mod:`.snapshot`): a ``torch.cuda.memory._snapshot()`` pickle read through a
  restricted unpickler, validated;
- :func:`analyse_snapshot` / :func:`render_png` (:mod:`.analysis`): fragmentation over time and a
  heatmap (``faultlib check memory``).
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "MemoryMonitor": "monitor", "MemorySample": "monitor",
    "Snapshot": "snapshot", "load_snapshot": "snapshot",
    "SnapshotReport": "analysis", "analyse_snapshot": "analysis", "render_png": "analysis",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
