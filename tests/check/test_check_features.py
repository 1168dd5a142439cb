"""`faultlib check features V1 V2` in a temp directory: exit codes 0/1/2, JSON fields, messages. The drifted
config's human output is checked black-box (its own process); the rest calls the same entry in this process
(:func:`tests.conftest.cli_in_process`: no fresh interpreter per call)."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from tests.conftest import REPO, cli, cli_in_process

pytest.importorskip("deepdiff")
CASE = REPO / "cases" / "feature_config_diff"
FIELDS = {"detector", "ok", "findings", "v1", "v2", "equal", "presentation_only", "added", "removed", "renamed",
          "changed", "order_changed", "shifted", "encoded_width", "features_before", "features_after"}


@pytest.fixture
def configs(tmp_path):
    for name in ("features_training.yaml", "features_serving.yaml", "features_serving_v2.yaml"):
        shutil.copy(CASE / name, tmp_path / name)
    return tmp_path


def check(*args, cwd, black_box: bool = False):
    if black_box:
        return cli("check", "features", *args, cwd=cwd, timeout=120)
    return cli_in_process("check", "features", *args, cwd=cwd)


def test_a_reserialised_config_exits_0_and_says_presentation_only(configs):
    proc = check("features_training.yaml", "features_serving.yaml", "--json", cwd=configs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == FIELDS
    assert out["ok"] is True and out["findings"] == [] and out["equal"] is True and out["presentation_only"] is True
    assert out["encoded_width"] == {"before": 13, "after": 13}
    assert out["v1"] == {"path": "features_training.yaml", "format": "yaml", "form": "document", "features": 9}
    human = check("features_training.yaml", "features_serving.yaml", cwd=configs)
    assert human.returncode == 0 and "presentation only" in human.stdout


def test_the_drifted_config_exits_1_with_every_change(configs):
    proc = check("features_training.yaml", "features_serving_v2.yaml", "--json", cwd=configs)
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is False and set(out) == FIELDS
    assert out["added"] == [{"name": "s4", "position": 4, "offset": 8, "width": 1, "line": 25}]
    assert [(r["name"], r["position"]) for r in out["removed"]] == [("s3", 6)]
    assert [{k: c[k] for k in ("feature", "key", "old", "new")} for c in out["changed"]] == [
        {"feature": "age", "key": "bins", "old": [35, 50, 65], "new": [40, 55, 70]},
        {"feature": "bp", "key": "fill_value", "old": 94.65, "new": 0}]
    assert out["order_changed"] == []
    assert [s["name"] for s in out["shifted"]] == ["s1", "s2"]
    assert out["features_after"][4] == "s4"
    for finding in out["findings"]:
        assert set(finding) == {"detector", "kind", "severity", "message", "location", "evidence"}
        assert finding["detector"] == "features" and "key" in finding["location"] and "file" in finding["location"]
    bins = next(f for f in out["findings"] if f["kind"] == "bin_edges_changed")
    assert bins["location"] == {"file": "features_serving_v2.yaml", "key": "features[0].bins", "line": 10, "index": 0}
    human = check("features_training.yaml", "features_serving_v2.yaml", cwd=configs, black_box=True)
    assert human.returncode == 1
    assert "features_serving_v2.yaml:10" in human.stdout and "bin_edges_changed" in human.stdout


def test_fail_on_error_ignores_warnings_only(configs):
    data = yaml.safe_load((configs / "features_training.yaml").read_text())
    data["features"][3]["fill_value"] = 0
    (configs / "fill.json").write_text(json.dumps(data, indent=2))
    proc = check("features_training.yaml", "fill.json", "--json", "--fail-on", "error", cwd=configs)
    assert proc.returncode == 0, proc.stdout
    out = json.loads(proc.stdout)
    assert out["ok"] is True and [f["kind"] for f in out["findings"]] == ["fill_value_changed"]
    assert out["changed"][0]["line"] is not None  # JSON got its line through PyYAML
    assert check("features_training.yaml", "fill.json", cwd=configs).returncode == 1  # default: warning


@pytest.mark.parametrize("content, phrase, line", [
    ("features:\n  - {name: age, bins: [35, 50\n", "invalid YAML", 3),
    ("features:\n  - name: age\n  - name: sex\n  - name: age\n", "feature 'age' appears twice", 4),
    ("- 1\n- 2\n", "with a string 'name'", 1),
    ("42\n", "not a feature config", 1),
])
def test_a_file_that_is_not_a_feature_config_exits_2_with_file_and_line(configs, content, phrase, line):
    (configs / "bad.yaml").write_text(content)
    proc = check("features_training.yaml", "bad.yaml", cwd=configs)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"bad.yaml:{line}:" in proc.stderr and phrase in proc.stderr
    assert "Traceback" not in proc.stderr
    as_json = check("features_training.yaml", "bad.yaml", "--json", cwd=configs)
    assert as_json.returncode == 2
    error = json.loads(as_json.stdout)
    assert error["error"] == "InputError" and error["line"] == line and error["file"] == "bad.yaml"


def test_missing_files_directories_and_bad_json_exit_2(configs):
    (configs / "bad.json").write_text('{"features": [\n  {"name": "a"}\n  {"name": "b"}\n]}')
    for args, phrase in ((["nope.yaml", "features_serving.yaml"], "file not found"),
                         ([".", "features_serving.yaml"], "is a directory"),
                         (["features_training.yaml", "bad.json"], "bad.json:3: invalid JSON")):
        proc = check(*args, cwd=configs)
        assert proc.returncode == 2 and phrase in proc.stderr, f"{args}; {proc.stderr}"
    assert check("features_training.yaml", cwd=configs).returncode == 2  # usage: V2 missing


def test_the_kinds_are_listed():
    proc = cli_in_process("check", "--list-kinds", "--json", cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)["features"]
    assert {"feature_added", "positions_shifted", "bin_edges_changed", "fill_value_changed", "window_changed",
            "vocabulary_changed", "transformer_changed"} <= set(listed)
    assert "predictions_changed" not in listed
