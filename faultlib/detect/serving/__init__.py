"""Serving (``serving.*``): a model that trained fine misbehaves where it is served.

- :mod:`.onnx`: an exported model a target runtime cannot load or run, and outputs that drift from
  torch (``check onnx``);
- :mod:`.blocking` (static, ``check blocking``) and :mod:`.loop_watchdog` (:class:`LoopWatchdog`, at run
  time): blocking calls that stall an asyncio service;
- :mod:`.latency`: :class:`DeadlineSLO`, timeouts and tail latency against a deadline;
- :mod:`.memory`: GPU allocator fragmentation, live (:class:`MemoryMonitor`) and from a memory snapshot
  (``check memory``);
- :mod:`.features`: two versions of a feature config that differ, and which predictions each change
  moves (``check features``).

Importing this package imports no torch, onnx or asyncio; each name loads its module on first use.
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "OnnxReport": "onnx", "check_model": "onnx", "compare_outputs": "onnx", "load_model": "onnx",
    "parse_target": "onnx",
    "BlockingReport": "blocking", "analyze_path": "blocking",
    "LoopWatchdog": "loop_watchdog",
    "DeadlineSLO": "latency", "LatencyStats": "latency",
    "MemoryMonitor": "memory", "MemorySample": "memory", "analyse_snapshot": "memory", "load_snapshot": "memory",
    "FeatureConfig": "features", "FeatureConfigDiff": "features", "attribute_predictions": "features",
    "diff_feature_configs": "features", "load_feature_config": "features",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
