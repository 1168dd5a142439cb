"""pytest plugin loaded by the runner for a case's ``test_case.py`` (``-p faultlib.cases.fixture``).

Fixtures:
    evidence: :class:`faultlib.evidence.RunEvidence` of the run under test (both phases).
    case_params: the case's ``repro.params`` (dict).
"""

from __future__ import annotations

import json
import os

import pytest

ENV_EVIDENCE = "FAULTLIB_EVIDENCE_DIR"
ENV_PHASES = "FAULTLIB_PHASE_STATUS"


@pytest.fixture(scope="session")
def evidence():
    from faultlib.evidence import read_run

    run_dir = os.environ.get(ENV_EVIDENCE)
    if not run_dir:
        pytest.fail(f"{ENV_EVIDENCE} is not set: run the assertion suite through `faultlib run CASE_DIR`")
    return read_run(run_dir, json.loads(os.environ.get(ENV_PHASES, "{}")))


@pytest.fixture(scope="session")
def case_params():
    from faultlib.repro import ENV_PARAMS

    return json.loads(os.environ.get(ENV_PARAMS, "{}"))
