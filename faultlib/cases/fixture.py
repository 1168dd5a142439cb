"""pytest plugin loaded by the runner for a case's ``test_case.py`` (``-p faultlib.cases.fixture``).

Fixtures:
    evidence: :class:`faultlib.evidence.RunEvidence` of the run under test (both phases).
    case_params: the case's ``repro.params`` (dict).

With ``faultlib run --no-control`` there is no control evidence: an assertion checked ``before`` the
fault, or any test that reads ``evidence.control``, is reported as skipped ("skipped (no control
run)") and the verdict is decided on the others.

A timing assertion that cannot tell the fault from the machine's own noise raises
:class:`~faultlib.errors.TimingInconclusive` (:mod:`faultlib.evidence.timing`): the test is reported
as skipped with the measured reason. ``evidence.has_control`` says whether the control ran.

``evidence.promql(query_id, phase=..., window=...)`` reads the case's PromQL as a real Prometheus
evaluated it (``promql.json``); in a run made without ``--prometheus`` a test that reads it is reported
as skipped, with the reason "run with --prometheus".

Each test's use of the control is noted in the JUnit XML (a ``<property name="faultlib.control">`` of its
testcase): ``read`` when it read the control's evidence (``evidence.control``, ``phase("control")``,
``promql(..., phase="control")``), ``asked`` when it asked whether the control ran (``has_control``,
``phases``). What the same evidence decides without its control follows: a test that did neither gets the
same outcome; one that only read it is skipped at its first read; only one that asked takes another path.
"""

from __future__ import annotations

import json
import os

import pytest

from faultlib.cases.suite_env import CONTROL_USE, ENV_EVIDENCE, ENV_PHASES, ENV_SKIP, NO_CONTROL

__all__ = ["CONTROL_USE", "ENV_EVIDENCE", "ENV_PHASES", "ENV_SKIP", "NO_CONTROL"]
_running = None  # the test item being set up, run or torn down: uses of the control are noted on it


def _note(use: str) -> None:
    if _running is not None and (CONTROL_USE, use) not in _running.user_properties:
        _running.user_properties.append((CONTROL_USE, use))


class _Watched:
    """A :class:`RunEvidence` with its control: every use of the control is noted on the running test."""

    def __init__(self, evidence):
        self._evidence = evidence

    def __getattr__(self, name: str):
        if name == "control":
            _note("read")
        elif name in ("has_control", "phases"):
            _note("asked")
        return getattr(self._evidence, name)

    def phase(self, name: str):
        if name == "control":
            _note("read")
        return self._evidence.phase(name)

    def promql(self, query_id: str, *, phase: str, window: str = "run"):
        if phase == "control":
            _note("read")
        return self._evidence.promql(query_id, phase=phase, window=window)


class _WithoutControl:
    """A :class:`RunEvidence` whose control phase was not run: reading it skips the test."""

    def __init__(self, evidence):
        self._evidence = evidence

    def __getattr__(self, name: str):
        if name == "control":
            pytest.skip(NO_CONTROL)
        return getattr(self._evidence, name)

    def phase(self, name: str):
        if name == "control":
            pytest.skip(NO_CONTROL)
        return self._evidence.phase(name)

    def promql(self, query_id: str, *, phase: str, window: str = "run"):
        if phase == "control":
            pytest.skip(NO_CONTROL)
        return self._evidence.promql(query_id, phase=phase, window=window)


def pytest_collection_modifyitems(config, items) -> None:
    reasons = json.loads(os.environ.get(ENV_SKIP, "{}"))
    for item in items:
        reason = reasons.get(getattr(item, "originalname", item.name))
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    global _running
    _running = item


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item) -> None:
    global _running
    _running = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test that reads PromQL results of a run made without ``--prometheus``, or whose timing assertion
    cannot tell the fault from this machine's noise (:mod:`faultlib.evidence.timing`), is skipped with
    the reason, not failed."""
    from faultlib.errors import PromqlNotRecorded, TimingInconclusive

    try:
        return (yield)
    except (PromqlNotRecorded, TimingInconclusive) as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def evidence():
    from faultlib.evidence import read_run

    run_dir = os.environ.get(ENV_EVIDENCE)
    if not run_dir:
        pytest.fail(f"{ENV_EVIDENCE} is not set: run the assertion suite through `faultlib run CASE_DIR`")
    status = json.loads(os.environ.get(ENV_PHASES, "{}"))
    run = read_run(run_dir, status)
    if (status.get("control") or {}).get("status") == "skipped":
        return _WithoutControl(run)
    return _Watched(run)


@pytest.fixture(scope="session")
def case_params():
    from faultlib.repro import ENV_PARAMS

    return json.loads(os.environ.get(ENV_PARAMS, "{}"))
