"""Environment fingerprints: what a run ran on, what changed since, and which known behaviour changes that crosses.

- :func:`collect` / :func:`dumps`: the current environment (Python, platform, every installed
  distribution, torch's build, devices) as canonical JSON; ``faultlib fingerprint`` prints it and
  every run record carries it (``run.json``'s ``fingerprint``).
- :func:`load`: a fingerprint file or a run record's fingerprint, read through the hardened readers
  (:class:`~faultlib.errors.InputError`, exit 2, on anything else).
- :func:`diff` -> :class:`FingerprintDiff`: Python, torch build, devices and package versions that changed.
- :func:`known_changes` -> :class:`KnownChange`: documented behaviour changes a diff crosses
  (``torch.load``'s ``weights_only`` default in torch 2.6 ...); :func:`findings` reports them.

Modules: :mod:`~faultlib.fingerprint.environment` (collect, dumps), :mod:`~faultlib.fingerprint.reader`
(load, validate), :mod:`~faultlib.fingerprint.compare` (diff), :mod:`~faultlib.fingerprint.changes`
(the knowledge). Only :func:`collect` imports torch (when installed); importing this package does not.
"""

from faultlib.fingerprint.changes import KNOWN_CHANGES, KnownChange, crosses, findings, known_changes
from faultlib.fingerprint.compare import FingerprintDiff, diff
from faultlib.fingerprint.environment import FORMAT, UNKNOWN, collect, dumps
from faultlib.fingerprint.reader import load, validate

__all__ = ["FORMAT", "KNOWN_CHANGES", "UNKNOWN", "FingerprintDiff", "KnownChange", "collect", "crosses", "diff",
           "dumps", "findings", "known_changes", "load", "validate"]
