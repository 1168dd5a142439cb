"""PromQL checks on real parsers: promql-parser always, Prometheus' own ``promtool`` when installed.

Black-box ``faultlib validate`` runs use a copy of the real fp16_overflow case with one defect each.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from faultlib.observability.promql_check import (PROMTOOL_INSTALL, PROMTOOL_MISSING, Query, check_queries,
                                                 grouping_labels, metric_names, promtool_errors, promtool_path)
from tests.conftest import REPO, cli, edit_case_yaml

PROMTOOL = promtool_path()
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason=f"promtool not installed: {PROMTOOL_INSTALL}")


def _copy_case(root: Path, case: str = "fp16_overflow") -> Path:
    dest = root / "cases" / case
    shutil.copytree(REPO / "cases" / case, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest




def _without_promtool_env() -> dict:
    """The environment with a PATH that holds only this interpreter's directory (no promtool)."""
    bin_dir = os.path.dirname(sys.executable)
    assert not os.path.exists(os.path.join(bin_dir, "promtool"))
    return {**os.environ, "PATH": bin_dir, "COLUMNS": "200"}


def test_metric_names_come_from_every_selector_of_the_ast():
    query = ('sum by (phase) (rate(faultlib_a_total[5m])) / on (phase) sum by (phase) '
             '(rate({__name__="faultlib_b_total", phase!="x"}[5m])) + max_over_time(faultlib_c[10m:1m]) '
             'or absent(faultlib_d{x="1" or y="2"}) + count({__name__=~"faultlib_e_.*"})')
    selected = metric_names(query)
    assert selected.names == {"faultlib_a_total", "faultlib_b_total", "faultlib_c", "faultlib_d"}
    assert selected.patterns == {"faultlib_e_.*"}


def test_grouping_labels_are_the_first_aggregations_without_le():
    assert grouping_labels("histogram_quantile(0.99, sum by (phase, window, le) (rate(x_bucket[5m])))") == [
        "phase", "window"]
    assert grouping_labels("sum by (phase, strategy) (rate(a[5m])) / sum by (phase) (rate(b[5m]))") == [
        "phase", "strategy"]
    assert grouping_labels("max(x)") == []


def test_a_syntax_error_names_the_query_and_promql_parsers_reason():
    queries = [Query(0, "fine", "max by (phase) (faultlib_x)"), Query(1, "broken", "max by (phase (faultlib_x)")]
    result = check_queries(queries, ["faultlib_x"], promtool=None)
    [problem] = result.problems
    assert problem.index == 1
    assert "query 'broken' is not valid PromQL (promql-parser: unclosed left parenthesis)" in problem.message
    assert problem.message.endswith("max by (phase (faultlib_x)")


def test_undeclared_metrics_are_errors_and_histogram_parts_count_as_declared():
    queries = [Query(0, "p99", "histogram_quantile(0.99, sum by (le) (rate(faultlib_lat_ms_bucket[5m])))"),
               Query(1, "mean", "rate(faultlib_lat_ms_sum[5m]) / rate(faultlib_lat_ms_count[5m])"),
               Query(2, "typo", "sum(faultlib_request_total)"),
               Query(3, "regex", 'count({__name__=~"faultlib_zzz_.*"})'),
               Query(4, "by_bucket", "sum(faultlib_other)")]
    result = check_queries(queries, ["faultlib_lat_ms", "faultlib_requests_total", "faultlib_other_bucket"])
    by_index = {p.index: p.message for p in result.problems}
    assert sorted(by_index) == [2, 3]
    assert "query 'typo' reads metric 'faultlib_request_total', not declared in observability.metrics" in by_index[2]
    assert "__name__ regex 'faultlib_zzz_.*' (matches no declared metric)" in by_index[3]


def test_no_metrics_declared_is_a_note_not_an_error():
    result = check_queries([Query(0, "q", "sum(anything_at_all)")], None)
    assert result.problems == []
    assert any("observability.metrics is not declared" in note for note in result.notes)


@needs_promtool
def test_promtool_errors_map_back_to_the_query_by_rule_number():
    queries = [Query(0, "ok", "sum by (phase) (rate(faultlib_a_total[5m]))"),
               Query(3, "grouping", "sum by (phase (rate(faultlib_a_total[5m]))"),
               Query(5, "types", "rate(faultlib_a_total)")]
    errors = promtool_errors(queries, PROMTOOL)
    assert sorted(errors) == [3, 5]
    assert "parse error" in errors[3] and "grouping opts" in errors[3]
    assert "expected type range vector in call to function \"rate\"" in errors[5]


@needs_promtool
def test_the_promtool_rules_file_is_written_with_a_yaml_library_not_by_formatting():
    """Quotes, ': ', '#', and a newline inside a query would break a string-formatted YAML file."""
    query = 'sum(rate(faultlib_a_total{path=~"a: #b", note=\'it\\\'s\'}[5m]))\n  / 2'
    assert promtool_errors([Query(0, "tricky", query)], PROMTOOL) == {}
    assert check_queries([Query(0, "tricky", query)], ["faultlib_a_total"], promtool=PROMTOOL).problems == []


@needs_promtool
def test_promtools_verdict_is_reported_for_a_case_query(tmp_path):
    case_dir = _copy_case(tmp_path)
    line = edit_case_yaml(case_dir, "query: min by (phase) (faultlib_loss_scale_low)",
                 "query: min by (phase (faultlib_loss_scale_low)")
    proc = cli("validate", str(case_dir), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (f"{case_dir / 'case.yaml'}:{line}: observability.promql[1].query: query 'loss_scale' is not valid PromQL "
            "(promtool: could not parse expression: 1:15: parse error") in proc.stderr
    assert "min by (phase (faultlib_loss_scale_low)" in proc.stderr
    assert PROMTOOL_MISSING not in proc.stderr


def test_without_promtool_validate_says_so_once_and_promql_parser_still_checks(tmp_path):
    case_dir = _copy_case(tmp_path)
    bad_line = edit_case_yaml(case_dir, "query: min by (phase) (faultlib_loss_scale_low)",
                     "query: min by (phase (faultlib_loss_scale_low)")
    typo_line = edit_case_yaml(case_dir, "query: min by (phase) (faultlib_amp_enabled)",
                      "query: min by (phase) (faultlib_amp_enable)")
    proc = subprocess.run([sys.executable, "-m", "faultlib", "validate", str(case_dir)], cwd=tmp_path,
                          env=_without_promtool_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count(PROMTOOL_MISSING) == 1
    assert (f"{case_dir / 'case.yaml'}:{bad_line}: observability.promql[1].query: query 'loss_scale' is not valid "
            "PromQL (promql-parser: unclosed left parenthesis): min by (phase (faultlib_loss_scale_low)") in proc.stderr
    assert (f"{case_dir / 'case.yaml'}:{typo_line}: observability.promql[3].query: query 'amp_enabled' reads metric "
            "'faultlib_amp_enable', not declared in observability.metrics") in proc.stderr
    assert "Traceback" not in proc.stderr


def test_every_catalog_query_parses_and_reads_declared_metrics():
    for path in sorted((REPO / "cases").glob("*/case.yaml")):
        obs = yaml.safe_load(path.read_text())["observability"]
        queries = [Query(i, q["id"], q["query"]) for i, q in enumerate(obs["promql"])]
        result = check_queries(queries, obs.get("metrics"), promtool=PROMTOOL)
        assert result.problems == [], f"{path}; {result.problems}"


@pytest.mark.parametrize("query,reason", [
    ("faultlib_loss_scale" + " + 0" * 12_500, "characters long; at most 4096"),        # crashed promql-parser
    ("(" * 3_000 + "faultlib_loss_scale" + ")" * 3_000, "characters long"),
    ("(" * 100 + "faultlib_loss_scale" + ")" * 100, "nests brackets 100 deep; at most 64"),
    ("faultlib_loss_scale" + "+0" * 300, "operator characters; at most 256"),
])
def test_a_query_too_large_for_a_parser_is_refused_by_validate_and_the_rest_of_the_catalog_still_loads(
        tmp_path, query, reason):
    """promql-parser dies with SIGSEGV (no exception) on a deep enough query: it must never see one."""
    case_dir = _copy_case(tmp_path)
    _copy_case(tmp_path, "nan_gradient")
    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    line = edit_case_yaml(case_dir, "query: min by (phase) (faultlib_amp_enabled)", f"query: {query}")
    proc = cli("validate", str(case_dir), cwd=tmp_path)
    assert proc.returncode == 2, f"{proc.returncode}; {proc.stderr[-500:]}"
    assert f"{case_dir / 'case.yaml'}:{line}: observability.promql[3].query: query 'amp_enabled' " in proc.stderr
    assert reason in proc.stderr and len(proc.stderr) < 5_000, "the message quotes the query, shortened"
    listed = cli("list", str(tmp_path / "cases"), "--json", cwd=tmp_path)
    assert listed.returncode in (0, 2) and listed.returncode != -11, listed.stderr[-500:]
    assert data["observability"]["promql"][3]["id"] == "amp_enabled"
    regress = cli("regress", str(tmp_path / "cases"), "--fault-class", "nothing.", "--json", cwd=tmp_path)
    assert regress.returncode >= 0, "not killed by a signal"


def test_a_query_that_reads_no_metric_is_an_error():
    result = check_queries([Query(0, "text", '"hello"'), Query(1, "number", "1"), Query(2, "ok", "vector(1) + x")],
                           ["x"], promtool=PROMTOOL)
    assert [(p.index, "reads no metric" in p.message) for p in result.problems] == [(0, True), (1, True)]


def test_a_subquery_past_prometheus_resolution_limit_is_refused():
    from faultlib.observability.promql_check import MAX_POINTS, Query, check_queries

    heavy = [Query(0, "heavy", "max_over_time(faultlib_x[30d:1ms])"),
             Query(1, "default_step", "max_over_time(faultlib_x[30d:])"),
             Query(2, "fine", "max_over_time(faultlib_x[1h:1s])")]
    result = check_queries(heavy, ["faultlib_x"])
    assert [p.index for p in result.problems] == [0, 1]
    assert all(f"{MAX_POINTS:,} points per series" in p.message for p in result.problems)
    assert "2,592,000,000 evaluations" in result.problems[0].message
