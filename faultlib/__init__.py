"""faultlib: a reproducible fault library for machine-learning systems.

Pillars (one subpackage each): ``cases`` (the catalog format), ``inject`` (fault
shims), ``detect`` (detectors), ``evidence`` (OpenTelemetry recording and reading),
``backends`` (where a run executes), ``archive`` (where evidence goes), ``cli``.

``import faultlib`` stays cheap: torch, onnxruntime and the cloud clients load lazily.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """Lazy exports: ``faultlib.safe_load_state_dict`` (see :mod:`faultlib.detect.state_dict`)."""
    if name == "safe_load_state_dict":
        from faultlib.detect.state_dict import safe_load_state_dict

        return safe_load_state_dict
    raise AttributeError(f"module 'faultlib' has no attribute {name!r}")
