"""faultlib: a reproducible fault library for machine-learning systems.

Pillars (one subpackage each): ``cases`` (the catalog format), ``inject`` (fault
shims), ``detect`` (detectors), ``evidence`` (OpenTelemetry recording and reading),
``backends`` (where a run executes), ``archive`` (where evidence goes), ``cli``.

``import faultlib`` stays cheap: torch, onnxruntime and the cloud clients load lazily.
"""

__version__ = "0.1.0"
