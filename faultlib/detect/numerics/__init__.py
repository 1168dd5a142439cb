"""Numerics (``numerics.*``): values that leave their dtype's range or stop being finite.

- :class:`OverflowSentinel` / :class:`GradientSentinel`: cheap per-step checks of activations and
  gradients (one fused norm per step), always on in production;
- :class:`OverflowCircuitBreaker`: the graded response to repeated fp16 overflows (skip, reset the loss
  scale, fall back to fp32, return to AMP);
- :class:`ExplodingGradientDetector`, :func:`gradient_norms`, :func:`compare_clipping`: which layer's
  gradient grew, and what global vs per-parameter clipping hide;
- :class:`NonFiniteLocator`, :func:`locate`, :func:`write_dump`: the first op that produced a NaN or
  inf from finite inputs, with its module, autograd node and source line (behind ``faultlib trace``).

Importing this package imports no torch; each name loads its module on first use.
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "FP16_MAX": "gradient_check", "GradientCheck": "gradient_check", "GradientSentinel": "sentinel", "OverflowSentinel": "sentinel",
    "BreakerAction": "amp_breaker", "BreakerDecision": "amp_breaker", "OverflowCircuitBreaker": "amp_breaker",
    "ClippingComparison": "gradients", "ExplodingGradientDetector": "gradients", "GradientNorms": "gradients",
    "compare_clipping": "gradients", "gradient_norms": "gradients",
    "NonFiniteEvent": "nan_locator", "NonFiniteLocator": "nan_locator", "TensorStats": "nan_locator",
    "locate": "nan_locator", "write_dump": "nan_locator",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
