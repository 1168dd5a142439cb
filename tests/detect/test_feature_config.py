"""Feature configs: reading every shape through the hardened readers, the semantic diff and its kinds,
the attribution of moved predictions on real data (diabetes, the case's encoder), and the shim's edits."""

from __future__ import annotations

import importlib.util
import json
import textwrap

import pytest
import yaml

from faultlib.detect.serving.features.attribution import apply_changes, attribute_predictions
from faultlib.detect.serving.features.config import encoded_width, load_feature_config, parse_feature_config
from faultlib.detect.serving.features.diff import KINDS, SEVERITY, classify, diff_feature_configs
from faultlib.errors import DetectorError, InjectionError, InputError
from faultlib.findings import KIND_PATTERN, Severity
from faultlib.inject.features import FeatureConfigEdit, apply_edits
from tests.conftest import REPO

pytest.importorskip("deepdiff")
CASE = REPO / "cases" / "feature_config_diff"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def diff_of(tmp_path, v1, v2, names=("v1.yaml", "v2.yaml")):
    return diff_feature_configs(load_feature_config(write(tmp_path, names[0], v1)),
                                load_feature_config(write(tmp_path, names[1], v2)))


def kinds(diff):
    return [f.kind for f in diff.findings]


# -- reading --------------------------------------------------------------------------------------

def test_every_shape_reads_to_the_same_features(tmp_path):
    shapes = {
        "list.yaml": "- {name: age, bins: [35, 50]}\n- sex\n- bmi: {type: numeric}\n",
        "doc.yaml": "version: 2\nfeatures:\n  - {name: age, bins: [35, 50]}\n  - sex\n  - {name: bmi, type: numeric}\n",
        "map.yaml": "age: {bins: [35, 50]}\nsex: {}\nbmi: {type: numeric}\n",
        "doc.json": json.dumps({"features": {"age": {"bins": [35, 50]}, "sex": {}, "bmi": {"type": "numeric"}}}),
    }
    forms = {}
    for name, text in shapes.items():
        config = load_feature_config(write(tmp_path, name, text))
        assert config.names() == ["age", "sex", "bmi"], name
        assert config.by_name()["age"].spec == {"bins": [35, 50]}
        forms[name] = (config.form, config.format)
    assert forms == {"list.yaml": ("list", "yaml"), "doc.yaml": ("document", "yaml"), "map.yaml": ("mapping", "yaml"),
                     "doc.json": ("document", "json")}


def test_json_gets_lines_when_pyyaml_reads_it_to_the_same_data(tmp_path):
    text = '{\n  "features": [\n    {"name": "age",\n     "bins": [1]}\n  ]\n}\n'
    config = load_feature_config(write(tmp_path, "c.json", text))
    assert config.line_of(("features", 0, "bins")) == 4
    odd = load_feature_config(write(tmp_path, "e.json", '{"features": [{"name": "x", "scale": 1e5}]}'))
    assert odd.by_name()["x"].spec == {"scale": 100000.0} and odd.line_of(("features", 0)) is None  # YAML 1.1: str


@pytest.mark.parametrize("text, phrase, line", [
    ("features:\n  - {name: age\n", "invalid YAML", 3),
    ("features:\n  - name: age\n  - name: age\n", "feature 'age' appears twice", 3),
    ("features:\n  - {bins: [1, 2], type: numeric}\n", "with a string 'name'", 2),
    ("features: 3\n", "must be a list or a mapping", 1),
    ("age: {bins: [1]}\nsex: 3\n", "not a feature config", 1),
    ("just a string\n", "not a feature config", 1),
    ("features:\n  - {name: age, bins: [.nan]}\n", "a bin edge is NaN", 2),
    ("age:\n  bins: [0, 18,\n         .nan]\n", "a bin edge is NaN", 3),
    ("a: &a [*a]\n", "recursive alias", 1),
])
def test_files_that_are_not_feature_configs_are_input_errors_with_the_line(tmp_path, text, phrase, line):
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(InputError) as info:
        load_feature_config(path)
    assert phrase in str(info.value) and info.value.line == line and info.value.path == str(path)


def test_bad_json_names_its_line(tmp_path):
    with pytest.raises(InputError, match="invalid JSON") as info:
        load_feature_config(write(tmp_path, "bad.json", '{"features": [\n  {"name": "a"},\n  oops\n]}'))
    assert info.value.line == 3


# -- presentation is not a change -----------------------------------------------------------------

def test_the_cases_reserialised_serving_config_is_presentation_only():
    diff = diff_feature_configs(load_feature_config(CASE / "features_training.yaml"),
                                load_feature_config(CASE / "features_serving.yaml"))
    assert diff.equal and diff.presentation_only and diff.findings == ()
    assert diff.fields()["encoded_width"] == {"before": 13, "after": 13}


def test_json_sorted_keys_and_int_vs_float_are_presentation(tmp_path):
    training = load_feature_config(CASE / "features_training.yaml")
    data = yaml.safe_load((CASE / "features_training.yaml").read_text())
    data["features"][0]["bins"] = [35.0, 50.0, 65.0]
    path = write(tmp_path, "t.json", json.dumps(data, sort_keys=True, indent=4))
    diff = diff_feature_configs(training, load_feature_config(path))
    assert diff.equal and diff.presentation_only


def test_a_quoted_number_is_a_change(tmp_path):
    diff = diff_of(tmp_path, "- {name: age, bins: [35, 50]}\n", "- {name: age, bins: ['35', 50]}\n")
    assert kinds(diff) == ["bin_edges_changed"]


# -- the diff of the case's drifted config ----------------------------------------------------------

def test_the_cases_drifted_config():
    diff = diff_feature_configs(load_feature_config(CASE / "features_training.yaml"),
                                load_feature_config(CASE / "features_serving_v2.yaml"))
    assert sorted(kinds(diff)) == sorted(["feature_added", "feature_removed", "positions_shifted", "bin_edges_changed",
                                          "fill_value_changed"])
    fields = diff.fields()
    assert [(a["name"], a["position"], a["offset"]) for a in fields["added"]] == [("s4", 4, 8)]
    assert [(r["name"], r["position"]) for r in fields["removed"]] == [("s3", 6)]
    assert [(c["feature"], c["key"], c["old"], c["new"]) for c in fields["changed"]] == [
        ("age", "bins", [35, 50, 65], [40, 55, 70]), ("bp", "fill_value", 94.65, 0)]
    text = (CASE / "features_serving_v2.yaml").read_text().splitlines()
    for change in fields["changed"]:
        assert text[change["line"] - 1].strip().startswith(change["key"] + ":")
    assert text[fields["added"][0]["line"] - 1].strip() == "- name: s4"
    assert diff.groups() == ["layout", "age.bins", "bp.fill_value"]
    severities = {f.kind: f.severity for f in diff.findings}
    assert severities["bin_edges_changed"] == Severity.WARNING and severities["feature_added"] == Severity.ERROR


# -- classification -------------------------------------------------------------------------------

def test_windows_vocabularies_transformers_types_sources_and_settings(tmp_path):
    v1 = """\
        owner: ranking-team
        defaults: {fill_value: 0}
        features:
          - {name: clicks_7d, source: clicks, window: {length: 7d, offset: 1d}, agg: sum}
          - {name: country, type: categorical, vocabulary: [de, fr, us], num_oov_buckets: 1}
          - {name: price, type: numeric, transform: {kind: standard, params: {with_mean: true}}}
          - {name: age, dtype: int, clip: 120}
        """
    v2 = """\
        owner: growth-team
        defaults: {fill_value: -1}
        features:
          - {name: clicks_7d, source: clicks_v2, window: {length: 14d, offset: 0d}, agg: mean}
          - {name: country, type: categorical, vocabulary: [de, us, fr, it], num_oov_buckets: 1}
          - {name: price, type: numeric, transform: {kind: standard, params: {with_mean: false}}}
          - {name: age, dtype: float, clip: 120}
        """
    diff = diff_of(tmp_path, v1, v2)
    by_key = {(c.feature, c.key): c.kind for c in diff.changes}
    assert by_key == {("clicks_7d", "source"): "source_changed", ("clicks_7d", "window.length"): "window_changed",
                      ("clicks_7d", "window.offset"): "window_changed", ("clicks_7d", "agg"): "parameter_changed",
                      ("country", "vocabulary"): "vocabulary_changed",
                      ("price", "transform.params.with_mean"): "transformer_changed", ("age", "dtype"): "dtype_changed",
                      (None, "owner"): "metadata_changed", (None, "defaults.fill_value"): "fill_value_changed"}
    vocab = next(f for f in diff.findings if f.kind == "vocabulary_changed")
    assert vocab.evidence["added_tokens"] == ["it"] and vocab.evidence["removed_tokens"] == []
    assert vocab.evidence["width_before"] == 4 and vocab.evidence["width_after"] == 5
    assert vocab.severity == Severity.ERROR and vocab.location["key"] == "features[1].vocabulary"
    assert "encoded_width_changed" in kinds(diff)
    shifted = next(f for f in diff.findings if f.kind == "positions_shifted").evidence["shifted"]
    assert [(s["name"], s["old_offset"], s["new_offset"]) for s in shifted] == [("price", 5, 6), ("age", 6, 7)]
    assert next(f for f in diff.findings if f.kind == "metadata_changed").severity == Severity.INFO


def test_classify_prefers_a_specific_key_over_a_container():
    assert classify(("transform", "params", "fill_value")) == "fill_value_changed"
    assert classify(("transform", "type")) == "transformer_changed"
    assert classify(("type",)) == "dtype_changed"
    assert classify(("window",)) == "window_changed"
    assert classify(("retries",), in_feature=False) == "config_changed"


def test_moving_one_feature_names_only_it(tmp_path):
    diff = diff_of(tmp_path, "[a, b, c, d, e]\n", "[a, c, d, b, e]\n")
    assert diff.order_changed == [{"name": "b", "old_position": 1, "new_position": 3}]
    assert [(s["name"], s["old_position"], s["new_position"]) for s in diff.shifted] == [("c", 2, 1), ("d", 3, 2)]
    assert sorted(kinds(diff)) == ["order_changed", "positions_shifted"]


def test_a_rename_with_the_same_definition_at_the_same_place(tmp_path):
    diff = diff_of(tmp_path, "- {name: bmi, type: numeric}\n- {name: bp}\n",
                   "- {name: body_mass, type: numeric}\n- {name: bp}\n")
    assert diff.renamed == [{"old": "bmi", "new": "body_mass", "position": 0, "line": 1}]
    assert kinds(diff) == ["feature_renamed"] and diff.added == diff.removed == []
    assert apply_changes(diff, ["layout"])["features"][0] == {"name": "body_mass", "type": "numeric"}


@pytest.mark.parametrize("spec, width", [
    ({"type": "numeric"}, 1), ({}, 1), ({"type": "categorical", "vocabulary": ["a", "b"]}, 2),
    ({"vocabulary": ["a", "b"], "num_oov_buckets": 2}, 4), ({"type": "bucketized", "bins": [1, 2, 3]}, 4),
    ({"n_bins": 5}, 5), ({"bins": [1, 2], "encoding": "ordinal"}, 1), ({"type": "text", "embedding_dim": 16}, 16),
    ({"type": "text"}, None), ({"type": "categorical"}, None), ({"hash_buckets": 100, "encoding": "one_hot"}, 100),
])
def test_encoded_width(spec, width):
    assert encoded_width(spec) == width


def test_unknown_widths_make_offsets_and_totals_null(tmp_path):
    diff = diff_of(tmp_path, "- {name: t, type: text}\n- {name: a}\n",
                   "- {name: t, type: text}\n- {name: b}\n- {name: a}\n")
    assert diff.width_before is None and diff.width_after is None
    assert diff.added[0]["offset"] is None
    assert "encoded_width_changed" not in kinds(diff)


def test_kinds_are_documented_snake_case_with_a_severity():
    assert set(SEVERITY) == set(KINDS)
    assert all(KIND_PATTERN.fullmatch(k) for k in KINDS)


# -- attribution on real data ---------------------------------------------------------------------

def _encoder():
    spec = importlib.util.spec_from_file_location("feature_config_diff_encoder", CASE / "encoder.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def served():
    """The case's model (diabetes, LogisticRegression on the training config), 133 serving rows, bp missing in ~20%."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    encoder = _encoder()
    frame = load_diabetes(scaled=False, as_frame=True).frame
    y = (frame["target"] > frame["target"].median()).astype(int).to_numpy()
    columns = {c: frame[c].to_numpy(dtype=float) for c in frame.columns if c != "target"}
    train, test = train_test_split(np.arange(len(frame)), test_size=0.3, random_state=0, stratify=y)
    rows = {c: v[test].copy() for c, v in columns.items()}
    rows["bp"][np.random.default_rng(0).random(len(test)) < 0.2] = np.nan
    training = load_feature_config(CASE / "features_training.yaml")
    encoded = encoder.encode(training.canonical(), {c: v[train] for c, v in columns.items()})
    model = LogisticRegression(max_iter=1000).fit(encoded, y[train])
    return encoder, model, rows


def test_apply_changes_rebuilds_both_sides_and_each_change_alone():
    training = load_feature_config(CASE / "features_training.yaml")
    serving = load_feature_config(CASE / "features_serving_v2.yaml")
    diff = diff_feature_configs(training, serving)
    assert apply_changes(diff, []) == training.canonical()
    assert apply_changes(diff, diff.groups()) == serving.canonical()
    only_bins = apply_changes(diff, ["age.bins"])
    assert only_bins["features"][0]["bins"] == [40, 55, 70]
    assert [f["name"] for f in only_bins["features"]] == training.names()
    with pytest.raises(DetectorError, match="unknown change group"):
        apply_changes(diff, ["age.window"])


def test_attribution_names_the_change_behind_each_moved_prediction(served):
    encoder, model, rows = served
    diff = diff_feature_configs(load_feature_config(CASE / "features_training.yaml"),
                                load_feature_config(CASE / "features_serving_v2.yaml"))
    result = attribute_predictions(diff, lambda config: model.predict(encoder.encode(config, rows)))
    assert result.rows == 133 and len(result.changed) >= 20
    assert set(result.by_group) == {"layout", "age.bins", "bp.fill_value"} and result.errors == {}
    bucket = lambda age, edges: sum(age >= e for e in edges)  # noqa: E731
    for row in result.by_group["age.bins"]:
        assert bucket(rows["age"][row], [35, 50, 65]) != bucket(rows["age"][row], [40, 55, 70])
    import numpy as np
    assert result.by_group["bp.fill_value"] and all(np.isnan(rows["bp"][i]) for i in result.by_group["bp.fill_value"])
    assert set(result.causes) == set(result.changed) and all(result.causes.values())
    assert result.finding.kind == "predictions_changed" and result.finding.evidence["changed"] == len(result.changed)
    assert json.loads(json.dumps(result.fields()))["changed"] == len(result.changed)


def test_attribution_reports_a_variant_predict_cannot_score(served):
    encoder, model, rows = served
    training = load_feature_config(CASE / "features_training.yaml")
    wider = parse_feature_config({"features": training.canonical()["features"] + [{"name": "s4", "type": "numeric"}],
                                  "version": 1, "model": "diabetes_progression_high"})
    diff = diff_feature_configs(training, wider)
    with pytest.raises(DetectorError, match="predict failed on the serving config"):
        attribute_predictions(diff, lambda config: model.predict(encoder.encode(config, rows)))


# -- the shim's edits -----------------------------------------------------------------------------

def test_the_cases_edits_produce_the_drifted_config_file():
    case = yaml.safe_load((CASE / "case.yaml").read_text())
    edits = case["inject"]["local"][0]["params"]["edits"]
    training = load_feature_config(CASE / "features_training.yaml").canonical()
    assert apply_edits(training, edits) == load_feature_config(CASE / "features_serving_v2.yaml").canonical()
    assert training == load_feature_config(CASE / "features_training.yaml").canonical()  # not mutated


def test_edits_move_unset_and_refuse_unknown_features():
    config = [{"name": "a", "x": 1}, {"name": "b"}, {"name": "c"}]
    assert [f["name"] for f in apply_edits(config, [{"move": "c", "to": 0}])] == ["c", "a", "b"]
    assert apply_edits(config, [{"feature": "a", "unset": ["x"]}])[0] == {"name": "a"}
    with pytest.raises(InjectionError, match="no feature 'z'"):
        apply_edits(config, [{"remove": "z"}])
    with pytest.raises(InjectionError, match="already in the config"):
        apply_edits(config, [{"insert": {"name": "b"}}])


class _Target:
    def __init__(self, model):
        self.model, self.step, self.attempt, self.points, self.faults = model, None, 1, {}, []

    def subscribe(self, point, callback):
        self.points.setdefault(point, []).append(callback)

    def record_fault(self, injector, **attributes):
        self.faults.append((injector, attributes))

    def reach(self, step):
        for callback in self.points["step"]:
            callback("step", {"step": step})


def test_the_shim_swaps_the_config_inside_its_window_and_reverts():
    class Service:
        config = {"features": [{"name": "a", "fill_value": 1}, {"name": "b"}]}

    service = Service()
    shim = FeatureConfigEdit(edits=[{"feature": "a", "set": {"fill_value": 0}}], start_step=2, steps=2)
    target = _Target(service)
    shim.apply(target)
    seen = []
    for step in range(5):
        target.reach(step)
        seen.append(service.config["features"][0]["fill_value"])
    assert seen == [1, 1, 0, 0, 1] and shim.hits == 2 and len(target.faults) == 1
    target.reach(2)
    shim.revert()
    assert service.config["features"][0]["fill_value"] == 1
    with pytest.raises(InjectionError, match="leave the config unchanged"):
        FeatureConfigEdit(edits=[{"feature": "b", "set": {}}], start_step=0).apply(_Target(Service()))


def test_infinite_bin_edges_and_nan_values_are_config_not_bad_input(tmp_path):
    training = write(tmp_path, "train.yaml", """\
        features:
          - name: age
            bins: [-.inf, 18, 65, .inf]
            missing_values: .nan
        """)
    dumped = tmp_path / "serve.json"  # what json.dumps writes for the same config: Infinity and NaN
    dumped.write_text(json.dumps({"features": [{"name": "age", "bins": [float("-inf"), 18, 65, float("inf")],
                                                "missing_values": float("nan")}]}))
    assert "Infinity" in dumped.read_text()
    assert diff_feature_configs(load_feature_config(training), load_feature_config(dumped)).findings == ()
    moved = write(tmp_path, "moved.yaml", """\
        features:
          - name: age
            bins: [-.inf, 21, 65, .inf]
            missing_values: .nan
        """)
    findings = diff_feature_configs(load_feature_config(training), load_feature_config(moved)).findings
    assert [(f.kind, f.evidence["moved_edges"]) for f in findings] == [
        ("bin_edges_changed", [{"index": 1, "old": 18, "new": 21}])]
