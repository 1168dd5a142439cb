"""What the runner tells a case's assertion suite (:mod:`faultlib.cases.fixture`, the pytest plugin) through
the environment, and how the suite reports back: names only, so that the runner, which starts the suite
in its own process, imports no pytest (about 0.15 s of CPU per ``faultlib run``).

- :data:`ENV_EVIDENCE`: the run directory under test.
- :data:`ENV_PHASES`: each phase's status, JSON (``{"control": {...}, "faulted": {...}}``).
- :data:`ENV_SKIP`: ``{test function: reason}``, JSON: tests the runner has the suite skip (the ``when:
  before`` ones under ``--no-control``, with the reason :data:`NO_CONTROL`).
- :data:`CONTROL_USE`: the JUnit property each testcase carries for its use of the control (``read``,
  ``asked``).
"""

from __future__ import annotations

ENV_EVIDENCE = "FAULTLIB_EVIDENCE_DIR"
ENV_PHASES = "FAULTLIB_PHASE_STATUS"
ENV_SKIP = "FAULTLIB_SKIP_TESTS"  # {test function: reason}, set by the runner
NO_CONTROL = "skipped (no control run)"
CONTROL_USE = "faultlib.control"  # the JUnit property: "read" and/or "asked" (see faultlib.cases.fixture)
