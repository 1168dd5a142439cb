"""Detectors that catch faults in the user's own training and serving code.

Every detector has the same shape: configure it, let it observe, and read typed, frozen
:class:`faultlib.findings.Finding` objects. Importing this package does not import torch.
"""

from faultlib.detect.amp_breaker import BreakerAction, BreakerDecision, OverflowCircuitBreaker
from faultlib.detect.gradients import (
    ClippingComparison, ExplodingGradientDetector, GradientNorms, compare_clipping, gradient_norms)
from faultlib.detect.latency import DeadlineSLO, LatencyStats
from faultlib.detect.nan_locator import NonFiniteEvent, NonFiniteLocator, locate, write_dump
from faultlib.detect.sentinel import FP16_MAX, GradientCheck, GradientSentinel, OverflowSentinel
from faultlib.findings import Finding, Severity

_LAZY = {"LoopWatchdog": "faultlib.detect.loop_watchdog",  # imports asyncio: loaded on first use
         "MemoryMonitor": "faultlib.detect.memory", "MemorySample": "faultlib.detect.memory"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FP16_MAX", "BreakerAction", "BreakerDecision", "ClippingComparison", "DeadlineSLO", "ExplodingGradientDetector", "Finding", "GradientCheck",
           "GradientSentinel", "LatencyStats", "LoopWatchdog", "MemoryMonitor", "MemorySample", "NonFiniteEvent", "NonFiniteLocator", "OverflowCircuitBreaker", "OverflowSentinel", "Severity", "compare_clipping", "gradient_norms", "locate", "write_dump"]
