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

__all__ = ["FP16_MAX", "BreakerAction", "BreakerDecision", "ClippingComparison", "DeadlineSLO", "ExplodingGradientDetector", "Finding", "GradientCheck",
           "GradientSentinel", "LatencyStats", "NonFiniteEvent", "NonFiniteLocator", "OverflowCircuitBreaker", "OverflowSentinel", "Severity", "compare_clipping", "gradient_norms", "locate", "write_dump"]
