"""Data (``data.*``): what reaches a model is not what it was trained or evaluated on.

- :mod:`.labels`: class order or names that differ between training and serving (``check labels``);
- :mod:`.batching`: batches a collate function cannot stack, and what padding or bucketing costs
  (``check batching``);
- :mod:`.alignment`: joins across sources with key formats, duplicate ids and clocks that disagree
  (``check align``);
- :mod:`.leakage`: preprocessing fitted on evaluation rows, statically in scripts and notebooks and at
  run time (``check leakage``, :class:`LeakageMonitor`);
- :mod:`.drift`: covariate shift between a reference and a current table, batch and streaming
  (``check drift``, :class:`DriftMonitor`).

The fixes these checks propose live in :mod:`faultlib.remedies`. Importing this package imports no
pandas, numpy or torch; each name loads its module on first use.
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "LabelMap": "label_maps", "LabelMapReport": "labels", "compare_label_maps": "labels", "decode_accuracy": "labels",
    "load_label_map": "label_maps",
    "BatchingReport": "batching", "check_batching": "batching",
    "AlignmentReport": "alignment", "check_alignment": "alignment", "parse_tolerance": "alignment",
    "LeakageMonitor": "leakage", "analyze_file": "leakage",
    "DriftConfig": "drift", "DriftMonitor": "drift", "DriftReport": "drift", "Response": "drift",
    "detect_drift": "drift", "mmd_test": "drift",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
