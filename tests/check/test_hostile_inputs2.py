"""Hostile inputs of the second pass (the newest readers): each kind that hung, blew up memory or read the input
wrongly, now bad input (exit 2, file and field) or measured as data, in-process."""

from __future__ import annotations

import tracemalloc

import pytest

from faultlib.detect.distributed.collectives import MAX_MISSING_NAMED, analyse, load_dumps
from tests.check.test_check_collectives import entry, write
from tests.check.test_fuzz_checks import run_check


def test_a_group_claiming_a_huge_world_names_the_first_absent_ranks_and_counts_the_rest(tmp_path):
    """A group listing 10^6 ranks with two dumps took over two minutes (one finding per absent rank)."""
    world = range(100_000)
    for rank in (0, 1):
        write(tmp_path / "d", rank, [entry(s, ranks=world) for s in range(2)])
    code, out = run_check("collectives", str(tmp_path / "d"))
    missing = [f for f in out["findings"] if f["kind"] == "dump_missing"]
    assert code == 1 and len(missing) == MAX_MISSING_NAMED + 1
    assert missing[-1]["evidence"] == {"count": 100_000 - 2 - MAX_MISSING_NAMED, "first": 2 + MAX_MISSING_NAMED,
                                       "last": 99_999}


def test_a_dump_whose_rank_is_not_its_file_name_is_bad_input(tmp_path):
    write(tmp_path / "d", 0, [entry(0, ranks=(0, 1))])
    write(tmp_path / "d", 1, [entry(0, ranks=(0, 1))], rank=10 ** 9)  # rank1.json claiming rank 10^9
    code, out = run_check("collectives", str(tmp_path / "d"))
    assert code == 2 and out["field"] == "rank" and out["file"].endswith("rank1.json")
    assert "rank1000000000.json" in out["message"]


def test_ranks_with_seqs_no_other_rank_holds_are_compared_without_a_ranks_by_seqs_table(tmp_path):
    """Each rank's entries beyond seq 0 are its own: the comparison built a list of every rank x every seq
    (2.5 GB for 300 ranks x 2,048); now what it reads is computed on demand, and the verdict is the same."""
    ranks, per_rank = 80, 120
    group = range(ranks)
    for rank in group:
        write(tmp_path / "d", rank, [entry(0, ranks=group)]
              + [entry(1 + rank * per_rank + k, ranks=group) for k in range(per_rank - 1)], world_size=ranks)
    dumps = load_dumps(tmp_path / "d")
    tracemalloc.start()
    try:
        report = analyse(dumps)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.first_divergence["seq"] == 1 and report.first_divergence["kind"] == "collective_missing"
    assert peak < ranks * ranks * per_rank * 8 / 4, peak  # a quarter of the table's pointers alone


PLUGIN = '''
from faultlib.detect.serving.blocking.entries import Family, Vocabulary
def raises(): raise RuntimeError("boom")
def exits(): raise SystemExit(0)
def junk(): return Vocabulary(calls={"time.sleep": None, 1: "x"})
def junk_family(): return Vocabulary(families=("not a family",))
def bad_family(): return Vocabulary(families=(Family(types="redis.Redis", methods=["get"], source=None),))
nothing = None
def good(): return Vocabulary(calls={"mypkg.fetch": ("blocking_http", "https://example.org/docs")})
'''


def test_blocking_call_plugins_that_raise_exit_or_return_junk_are_left_out_and_named(tmp_path, monkeypatch):
    """A plugin's sys.exit(0) ended `check blocking` with exit 0 and no output; a junk table replaced the
    built-in time.sleep entry (its finding vanished); a str among the families crashed with a traceback."""
    import importlib.metadata as md

    from faultlib.detect.serving.blocking import vocab

    (tmp_path / "hostile_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ["raises", "exits", "junk", "junk_family", "bad_family", "nothing", "good"]
    eps = md.EntryPoints(md.EntryPoint(n, f"hostile_plugin:{n}", vocab.ENTRY_POINT_GROUP) for n in names)
    real = md.entry_points
    monkeypatch.setattr(md, "entry_points", lambda group=None, **kw: eps if group == vocab.ENTRY_POINT_GROUP
                        else real(group=group, **kw) if group else real(**kw))
    (tmp_path / "svc.py").write_text("import time, mypkg\nasync def handler():\n    time.sleep(1)\n"
                                     "    mypkg.fetch()\n")
    vocab.vocabulary.cache_clear()
    try:
        with __import__("pytest").warns(UserWarning):
            merged = vocab.vocabulary()
        assert merged.plugins == ("good",)
        assert sorted(f.split(":")[0] for f in merged.failed) == sorted(n for n in names if n != "good")
        code, out = run_check("blocking", str(tmp_path / "svc.py"))
    finally:
        vocab.vocabulary.cache_clear()
    assert code == 1 and sorted(f["location"]["line"] for f in out["findings"]) == [3, 4]



LEAK = ("from sklearn.datasets import load_iris\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression\n"
        "X, y = load_iris(return_X_y=True)\nX = StandardScaler().fit_transform(X)\n"
        "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))\n")


def test_a_notebook_made_large_by_its_plots_is_analysed_and_an_oversized_one_says_clear_the_outputs(tmp_path):
    """A notebook over 4 MiB (the bound for configs) was refused, though its plots are what weigh."""
    import json

    from faultlib.errors import InputError
    from faultlib.readers.files import Limits
    from faultlib.readers.notebook import load_notebook

    plot = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBOR" + "A" * (6 << 20)}}
    cell = {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": LEAK, "outputs": [plot]}
    path = tmp_path / "plots.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}))
    code, out = run_check("leakage", str(path))
    assert code == 1 and [f["kind"] for f in out["findings"]] == ["fit_before_split"]
    with pytest.raises(InputError, match=r"the limit is 1000 bytes: clear its outputs first \(jupyter nbconvert"):
        load_notebook(path, limits=Limits(max_bytes=1000))


@pytest.mark.parametrize("start", ["1e400", "-5", -5, "١٢٣", "9" * 21])
def test_a_span_time_that_is_not_unsigned_nanoseconds_names_the_field(tmp_path, start):
    import json

    from faultlib.errors import InputError
    from faultlib.traces.load import load_spans

    span = {"traceId": "a", "spanId": "b", "name": "x", "startTimeUnixNano": start, "endTimeUnixNano": "5"}
    (tmp_path / "t.json").write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    with pytest.raises(InputError, match=r"t.json:1: not OTLP/JSON traces: startTimeUnixNano is .* integers of "
                                         r"nanoseconds"):
        load_spans(tmp_path / "t.json")


def test_a_faultlib_trace_report_given_to_new_from_trace_is_named_as_one(tmp_path):
    import json

    from faultlib.errors import InputError
    from faultlib.traces.load import load_spans

    report = {"ok": True, "exit_code": 0, "first_nonfinite": None, "findings": [], "dump": None}
    (tmp_path / "report.json").write_text(json.dumps(report))
    with pytest.raises(InputError, match=r"is a `faultlib trace` report .* takes OTLP/JSON spans"):
        load_spans(tmp_path / "report.json")


def test_world_workload_on_a_one_process_case_is_a_usage_error(tmp_path):
    """`run fp16_overflow --backend kubernetes --world-workload indexed-job` ignored the option without a word."""
    from pathlib import Path

    from tests.conftest import cli

    case = Path(__file__).parents[2] / "cases" / "fp16_overflow"
    proc = cli("run", str(case), "--backend", "kubernetes", "--dry-run", "--world-workload", "indexed-job",
               cwd=tmp_path)
    assert proc.returncode == 2 and "applies to a distributed case (repro.world" in proc.stderr


def test_a_fatal_trace_of_a_rank_no_group_names_is_a_finding_not_ok(tmp_path):
    """rank2.fatal said "Fatal Python error: Aborted" but no recorded group listed rank 2: the check said ok."""
    write(tmp_path / "d", 0, [entry(0, ranks=(0, 1))])
    write(tmp_path / "d", 1, [entry(0, ranks=(0, 1))])
    (tmp_path / "d" / "rank2.fatal").write_text('Fatal Python error: Aborted\n\nCurrent thread 0x1 (most recent call '
                                                'first):\n  File "train.py", line 5 in all_reduce\n')
    code, out = run_check("collectives", str(tmp_path / "d"))
    [finding] = out["findings"]
    assert code == 1 and finding["kind"] == "dump_missing" and finding["evidence"]["rank"] == 2
    assert finding["message"].startswith("rank 2 died on a fatal signal but left no rank2.json")
