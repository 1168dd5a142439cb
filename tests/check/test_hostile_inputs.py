"""Hostile inputs found by attacking the checks by hand (the hostile-input wave): each kind that once crashed,
hung or read the file wrongly, now bad input (exit 2, file and field) or measured as data, in-process."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from faultlib.errors import InputError
from tests.check.test_check_collectives import entry, write
from tests.check.test_fuzz_checks import SETTINGS, run_check


@pytest.mark.parametrize("extra, field", [({"dropped": "lots"}, "dropped"), ({"dropped": [1]}, "dropped")])
def test_a_dump_whose_dropped_count_is_not_a_number_is_bad_input(tmp_path, extra, field):
    write(tmp_path / "d", 0, [entry(0)])
    write(tmp_path / "d", 1, [entry(0)], **extra)  # was int("lots"): a ValueError traceback
    code, out = run_check("collectives", str(tmp_path / "d"))
    assert code == 2 and out["field"] == field and out["file"].endswith("rank1.json")


def test_a_negative_rank_in_a_group_is_bad_input(tmp_path):
    write(tmp_path / "d", 0, [entry(0, ranks=(0, -5))])
    write(tmp_path / "d", 1, [entry(0)])
    code, out = run_check("collectives", str(tmp_path / "d"))
    assert code == 2 and out["field"] == "entries[0].group.ranks[1]"


@SETTINGS
@given(far=st.integers(10 ** 6, 10 ** 17))
def test_a_far_sequence_number_is_compared_not_counted_up_to(tmp_path_factory, far):
    """A seq of 10^15 in one dump made the comparison build a list of every number below it (a hang); the
    helper writes start_ns = 10 * seq, so seq stays below int64 / 10."""
    d = tmp_path_factory.mktemp("d")
    write(d, 0, [entry(0, ranks=(0, 1)), entry(far, ranks=(0, 1))], world_size=2)
    write(d, 1, [entry(0, ranks=(0, 1))], world_size=2)
    code, out = run_check("collectives", str(d))
    assert code == 1
    assert [(f["kind"], f["evidence"]["seq"]) for f in out["findings"]] == [("collective_missing", far)]


def test_a_class_index_beyond_any_output_layer_is_bad_input(tmp_path):
    (tmp_path / "train.json").write_text(json.dumps({"0": "cat", "99999999999999999999": "dog"}))
    (tmp_path / "serve.json").write_text(json.dumps(["cat", "dog"]))
    code, out = run_check("labels", str(tmp_path / "train.json"), str(tmp_path / "serve.json"))
    assert code == 2 and "larger than 4,194,303" in out["message"]  # was range(10^20): killed for memory


def test_a_sparse_label_map_reports_its_first_holes_without_listing_all(tmp_path):
    (tmp_path / "train.json").write_text(json.dumps({"0": "cat", "5000": "dog"}))
    (tmp_path / "serve.json").write_text(json.dumps(["cat", "dog"]))
    code, out = run_check("labels", str(tmp_path / "train.json"), str(tmp_path / "serve.json"))
    gap = next(f for f in out["findings"] if f["kind"] == "index_gap")
    assert code == 1 and gap["evidence"]["missing_indices"] == list(range(1, 101))
    assert gap["evidence"]["max_index"] == 5000


def test_parse_index_bound_is_inclusive():
    from faultlib.detect.data.label_maps import MAX_INDEX, parse_index

    assert parse_index(str(MAX_INDEX), "k", None) == MAX_INDEX
    with pytest.raises(InputError):
        parse_index(MAX_INDEX + 1, "k", None)


def test_an_error_without_a_file_names_no_made_up_file():
    """A command-line value or option combination has no file: the message says the field, not '<input>:'."""
    assert str(InputError("give one of --model or --reference", field="--model")) == \
        "--model: give one of --model or --reference"
    assert str(InputError("no complete run of 'x'")) == "no complete run of 'x'"
    assert str(InputError("bad", path="t.json", line=3, field="a")) == "t.json:3: a: bad"


def test_new_from_a_trace_without_any_call_names_the_trace_file(tmp_path):
    from tests.conftest import cli

    span = {"traceId": "ab" * 16, "spanId": "01" * 8, "name": "GET /", "kind": 2, "startTimeUnixNano": "1",
            "endTimeUnixNano": "2"}
    (tmp_path / "t.json").write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    proc = cli("new", "incident", "--from-trace", "t.json", "--out", "cases", cwd=tmp_path)
    assert proc.returncode == 2 and "t.json: the trace has no parent -> child call" in proc.stderr
    assert not (tmp_path / "cases" / "incident").exists()


def _commands(group, prefix=()):
    """Every command below ``group``, lazily loaded ones (`faultlib check` plugins) included."""
    import click

    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_no_float_option_of_any_command_lets_nan_or_inf_through():
    """click.FloatRange passes 'nan' through any bound (`--atol nan` turned a comparison off, `--min-reserved-mib
    inf` was an OverflowError traceback): every float option is a FiniteFloat, `faultlib check` plugins too."""
    import click

    from faultlib.cli.app import app

    commands = dict(_commands(app))
    assert ("check", "onnx") in commands and ("trace",) in commands
    loose = [(" ".join(path), p.name) for path, command in commands.items() for p in command.params
             if isinstance(p.type, (click.FloatRange,)) or p.type is click.FLOAT]
    assert not loose, loose


@pytest.mark.parametrize("argv", [["check", "memory", "s.pickle", "--min-reserved-mib", "inf"],
                                  ["check", "onnx", "m.onnx", "--rtol", "nan"],
                                  ["trace", "--asyncio", "--threshold-ms", "nan", "--", "python", "a.py"]])
def test_a_non_finite_option_is_bad_usage(tmp_path, argv):
    from tests.conftest import cli

    proc = cli(*argv, cwd=tmp_path)
    assert proc.returncode == 2 and "is not a finite number" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("setting, value", [("permutations", 10 ** 11), ("mmd_features", 10 ** 8)])
def test_a_drift_setting_whose_cost_grows_with_it_is_bounded(setting, value):
    """--permutations 10^11 was numpy's 291 TiB allocation error as a traceback: now bad input, named."""
    from faultlib.detect.data.drift.config import DriftConfig
    from faultlib.errors import DetectorError

    with pytest.raises(DetectorError, match=f"{setting} must be at most"):
        DriftConfig(**{setting: value})


def test_an_output_file_is_never_one_of_the_inputs(tmp_path):
    """`regress --report cases/x/case.yaml` replaced the case.yaml it ran with the HTML report: refused before
    anything runs, for a file inside what the command reads and for that input itself."""
    from faultlib.outputs import output_file
    from tests.conftest import cli

    catalog = tmp_path / "cases"
    (catalog / "a").mkdir(parents=True)
    (catalog / "a" / "case.yaml").write_text("id: a\n")
    for target in (catalog / "a" / "case.yaml", catalog / "report.html"):
        with pytest.raises(InputError, match="this command reads"):
            output_file(target, "--report", reads=(catalog,))
    script = tmp_path / "train.py"
    script.write_text("pass\n")
    with pytest.raises(InputError, match="would replace the input"):
        output_file(script, "--out", reads=(script,))
    assert output_file(tmp_path / "report.html", "--report", reads=(catalog, script)).path == tmp_path / "report.html"
    proc = cli("regress", "cases", "--report", "cases/a/case.yaml", cwd=tmp_path)
    assert proc.returncode == 2 and "--report" in proc.stderr and "would replace the input" in proc.stderr
    assert (catalog / "a" / "case.yaml").read_text() == "id: a\n"


@pytest.mark.parametrize("check", ["blocking", "resume"])
def test_source_nested_past_the_parser_is_bad_input_that_says_what_to_do(tmp_path, check):
    (tmp_path / "deep.py").write_text("import time\nasync def h():\n    x = a" + ".b" * 3000 + "\n")
    code, out = run_check(check, str(tmp_path / "deep.py"))
    assert code == 2 and "nested too deeply" in out["message"] and "split it" in out["message"]
