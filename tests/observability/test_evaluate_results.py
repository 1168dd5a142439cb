"""promql.json read back: NaN and infinities survive as strings, the closed schema refuses what it does not
know, a symlink is not followed, and `select` answers with errors that name the query, phase and window."""

from __future__ import annotations

import json
import math
import os

import pytest

from faultlib import schemas
from faultlib.errors import PromqlError, PromqlNotRecorded
from faultlib.evidence import layout
from faultlib.evidence.promql import decode_value, dumps, encode_value, load


def _entry(window="during", phase="faulted", values=((1.0, 0.0), (2.0, 0.5)), error=None, **labels):
    return {"id": "rate", "query": "sum by (phase) (rate(x_total[5m]))", "phase": phase, "window": window,
            "start": 1.0, "end": 2.0, "step": 1.0, "error": error,
            "series": [] if error else [{"labels": {"phase": phase, **labels},
                                         "values": [[t, encode_value(v)] for t, v in values], "phase_label": True}]}


def _write(run_dir, *entries, **extra):
    document = {"prometheus": "2.42.0+ds", "queries": list(entries), **extra}
    (run_dir / layout.PROMQL).write_bytes(dumps(document))
    return document


def test_non_finite_values_round_trip_as_strings(tmp_path):
    document = _write(tmp_path, _entry(values=((1.0, math.nan), (2.0, math.inf), (3.0, -math.inf), (4.0, 2.5))))
    text = (tmp_path / layout.PROMQL).read_text()
    assert '"NaN"' in text and '"+Inf"' in text and '"-Inf"' in text
    assert list(schemas.validator("promql").iter_errors(document)) == []
    values = load(tmp_path).select("rate", phase="faulted", window="during").values()
    assert math.isnan(values[0]) and values[1:] == [math.inf, -math.inf, 2.5]
    assert [decode_value(encode_value(v)) for v in (0.0, -1.5)] == [0.0, -1.5]


def test_max_and_min_ignore_nan_and_refuse_to_answer_on_nothing(tmp_path):
    _write(tmp_path, _entry(values=((1.0, math.nan), (2.0, 3.0), (3.0, 1.0))), _entry(window="before", values=()),
           _entry(window="after", values=((1.0, math.nan),)))
    results = load(tmp_path)
    during = results.select("rate", phase="faulted", window="during")
    assert (during.max(), during.min(), len(during)) == (3.0, 1.0, 1)
    with pytest.raises(PromqlError, match=r"PromQL 'rate' .* in faulted/before .* returned no value"):
        results.select("rate", phase="faulted", window="before").max()
    assert results.select("rate", phase="faulted", window="after").max(default=None) is None


def test_a_failed_query_raises_with_prometheus_error(tmp_path):
    _write(tmp_path, _entry(error="bad_data: 1:10: parse error: unclosed left parenthesis"))
    selection = load(tmp_path).select("rate", phase="faulted", window="during")
    assert len(selection) == 0
    with pytest.raises(PromqlError, match="failed in Prometheus: bad_data: 1:10: parse error"):
        selection.values()


def test_unknown_queries_and_windows_are_named(tmp_path):
    _write(tmp_path, _entry(window="before"), _entry(window="run"))
    results = load(tmp_path)
    with pytest.raises(PromqlError, match="no PromQL query 'nope' in promql.json; queries: rate"):
        results.select("nope", phase="faulted")
    with pytest.raises(PromqlError, match="has no window 'during' in phase 'faulted'; windows there: before, run"):
        results.select("rate", phase="faulted", window="during")
    with pytest.raises(PromqlError, match="windows there: none"):
        results.select("rate", phase="control")


def test_a_run_without_promql_json_says_to_run_with_prometheus(tmp_path):
    with pytest.raises(PromqlNotRecorded, match=r"run with --prometheus"):
        load(tmp_path)


def test_the_schema_is_closed_and_the_reader_refuses_what_it_does_not_know(tmp_path):
    entry = _entry()
    entry["series"][0]["extra"] = 1
    _write(tmp_path, entry)
    with pytest.raises(PromqlError, match=r"does not match promql.schema.json at queries/0/series/0"):
        load(tmp_path)
    _write(tmp_path, _entry(window="sometime"))
    with pytest.raises(PromqlError, match=r"at queries/0/window"):
        load(tmp_path)
    _write(tmp_path, _entry(), unexpected=True)
    with pytest.raises(PromqlError, match=r"at \(root\)"):
        load(tmp_path)


def test_a_symlinked_promql_json_is_not_followed(tmp_path):
    real = tmp_path / "elsewhere.json"
    real.write_text(json.dumps({"prometheus": "2", "queries": []}))
    os.symlink(real, tmp_path / layout.PROMQL)
    with pytest.raises(PromqlError, match="symbolic link"):
        load(tmp_path)


def test_an_empty_result_set_says_why(tmp_path):
    _write(tmp_path)
    with pytest.raises(PromqlError, match="holds no result: the run recorded no span"):
        load(tmp_path).select("rate", phase="faulted")
