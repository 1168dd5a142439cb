"""A metric with more label sets than the OpenTelemetry SDK keeps is a warning finding, not a silent loss."""

from __future__ import annotations

from faultlib.archive import FileArchive
from faultlib.cases import load_case
from faultlib.runner import Runner
from tests.conftest import TINY_REPRO, tiny_case_data, write_case

WIDE = TINY_REPRO.replace('''    for step in range(steps):''', '''    users = ctx.evidence.counter("faultlib_tiny_requests_by_user_total", "requests by user (an anti-pattern)")
    for user in range(ctx.params.get("users", 0)):
        users.add(1, user=str(user))
    for step in range(steps):''')


def _run(tmp_path, users: int):
    data = tiny_case_data()
    data["repro"]["params"] = {"users": users}
    case = load_case(write_case(tmp_path / "cases", data, repro=WIDE))
    return Runner(FileArchive(tmp_path / "runs")).run(case)


def test_series_past_the_sdk_limit_are_a_warning_per_phase(tmp_path):
    record = _run(tmp_path, 2_500)
    found = [f for f in record.findings if f.kind == "metric_cardinality_overflow"]
    assert len(found) == 2, "one per phase"
    assert all(f.severity.value == "warning" and "faultlib_tiny_requests_by_user_total" in f.message
               and "otel_metric_overflow" in f.message for f in found)
    assert record.verdict.value == "passed", "a warning: the evidence is kept, the verdict stands"


def test_under_the_limit_nothing_is_said(tmp_path):
    record = _run(tmp_path, 100)
    assert not [f for f in record.findings if f.kind == "metric_cardinality_overflow"]
