"""Covariate shift: has the distribution of a model's inputs moved away from the data it was validated on?

- :func:`detect_drift` compares two tables at once (``faultlib check drift REF CUR``): per column the
  test that fits its type (KS for numbers, chi-squared for categories) or PSI, the multivariate MMD
  test, Benjamini-Hochberg across all of them, and a graded response (record / alert / freeze);
- :class:`DriftMonitor` watches a stream of served batches with bounded memory (bin counts and
  running moments over a sliding window, never the raw rows);
- :func:`mmd_test` is the kernel two-sample test on its own (exact, or random Fourier features for
  large samples);
- :class:`DriftConfig` holds every threshold, each default with its source.

Importing this package imports numpy; scipy and pandas load when a test or a table needs them.
"""

from faultlib.detect.data.drift.batch import compare, detect_drift
from faultlib.detect.data.drift.report import ColumnDrift, DriftReport, Multivariate
from faultlib.detect.data.drift.config import METHODS, DriftConfig, Response
from faultlib.detect.data.drift.mmd import MMDResult, mmd_test
from faultlib.detect.data.drift.monitor import DriftMonitor
from faultlib.detect.data.drift.tables import ColumnPair, align_tables

__all__ = ["METHODS", "ColumnDrift", "ColumnPair", "DriftConfig", "DriftMonitor", "DriftReport", "MMDResult",
           "Multivariate", "Response", "align_tables", "compare", "detect_drift", "mmd_test"]
