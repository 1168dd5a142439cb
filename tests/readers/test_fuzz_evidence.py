"""Property-based: any bytes a repro writes into its evidence files are read back without a crash.

The evidence reader (assertion-suite fixture) and the exposition writer (runner) either use a line
or report it as a problem; they never raise on what a repro wrote.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.evidence import layout
from faultlib.evidence.prom import exposition
from faultlib.evidence.reader import read_run

FUZZ = settings(max_examples=120, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
                      st.text(max_size=8))
json_any = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                        max_leaves=12)


def _otlp_like(kind: str):
    """OTLP-shaped lines with any field replaced by any JSON value."""
    point = st.fixed_dictionaries({}, optional={"asDouble": json_any, "asInt": json_any, "timeUnixNano": json_any,
                                                "attributes": json_any, "sum": json_any, "count": json_any,
                                                "bucketCounts": json_any, "explicitBounds": json_any})
    metric = st.fixed_dictionaries({"name": st.one_of(st.text(max_size=8), json_any)},
                                   optional={"gauge": st.fixed_dictionaries({"dataPoints": st.lists(point, max_size=2)}),
                                             "sum": json_any, "histogram": json_any})
    span = st.fixed_dictionaries({}, optional={"name": json_any, "attributes": json_any, "startTimeUnixNano": json_any,
                                               "endTimeUnixNano": json_any, "status": json_any, "events": json_any})
    if kind == "metrics":
        return st.fixed_dictionaries({"resourceMetrics": st.lists(st.fixed_dictionaries(
            {"resource": json_any, "scopeMetrics": st.lists(st.fixed_dictionaries(
                {"metrics": st.lists(metric, max_size=2)}), max_size=2)}), max_size=2)})
    return st.fixed_dictionaries({"resourceSpans": st.lists(st.fixed_dictionaries(
        {"resource": json_any, "scopeSpans": st.lists(st.fixed_dictionaries(
            {"spans": st.lists(span, max_size=2)}), max_size=2)}), max_size=2)})


lines = st.one_of(st.binary(max_size=60), json_any.map(lambda v: json.dumps(v).encode()),
                  _otlp_like("spans").map(lambda v: json.dumps(v).encode()),
                  _otlp_like("metrics").map(lambda v: json.dumps(v).encode()),
                  st.fixed_dictionaries({"phase": st.sampled_from(["control", "faulted", "x"]),
                                         "finding": json_any}).map(lambda v: json.dumps(v).encode()))


@FUZZ
@given(traces=st.lists(lines, max_size=4), metrics=st.lists(lines, max_size=4), logs=st.lists(lines, max_size=3),
       findings=st.lists(lines, max_size=4), run_json=st.one_of(st.none(), st.binary(max_size=40), lines))
def test_any_evidence_bytes_are_read_without_a_crash(tmp_path_factory, traces, metrics, logs, findings, run_json):
    run_dir = tmp_path_factory.mktemp("run")
    for name, content in ((layout.TRACES, traces), (layout.METRICS, metrics), (layout.LOGS, logs),
                          (layout.FINDINGS, findings)):
        (run_dir / name).write_bytes(b"\n".join(content))
    if run_json is not None:
        (run_dir / layout.RUN).write_bytes(run_json)
    evidence = read_run(run_dir)
    assert evidence.control.name == "control" and evidence.faulted.name == "faulted"
    assert isinstance(exposition(run_dir / layout.METRICS), bytes)
