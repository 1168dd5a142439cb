"""Label maps read from real files in every supported form, compared index by index and by name."""

from __future__ import annotations

import json

import pytest

from faultlib.detect.data.labels import KINDS, compare_label_maps, decode_accuracy
from faultlib.detect.data.label_maps import LabelMap, label_map, load_label_map
from faultlib.readers.keypath import split_source
from faultlib.errors import InjectionError, InputError
from faultlib.inject import build
from faultlib.inject.labels import reorder

DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ----------------------------------------------------------------------------- reading


def test_every_form_reads_to_the_same_map(tmp_path):
    forms = [
        write(tmp_path, "list.json", json.dumps(DIGITS)),
        write(tmp_path, "id2label.json", json.dumps({str(i): n for i, n in reversed(list(enumerate(DIGITS)))})),
        write(tmp_path, "label2id.json", json.dumps({n: i for i, n in sorted(enumerate(DIGITS), key=lambda p: p[1])})),
        write(tmp_path, "config.json", json.dumps({"architectures": ["X"], "id2label": dict(enumerate(DIGITS)),
                                                   "label2id": {n: i for i, n in enumerate(DIGITS)}})),
        write(tmp_path, "labels.txt", "\n".join(DIGITS) + "\n\n"),
        write(tmp_path, "list.yaml", "".join(f"- {n}\n" for n in DIGITS)),
        write(tmp_path, "serving.yaml", "model: m\npostprocess:\n  class_names: [" + ", ".join(DIGITS) + "]\n")
        + "#postprocess.class_names",
        write(tmp_path, "heads.yaml", "heads:\n  - name: a\n    id2label:\n" +
              "".join(f"      '{i}': {n}\n" for i, n in enumerate(DIGITS))) + "#heads[0].id2label",
    ]
    maps = [load_label_map(spec) for spec in forms]
    for m in maps:
        assert m.labels == dict(enumerate(DIGITS)), m.source
    assert [m.form for m in maps[:5]] == ["list", "id2label", "label2id", "id2label", "text"]
    for m in maps[1:]:
        assert compare_label_maps(maps[0], m).ok


def test_integer_labels_and_int_keys_compare_as_strings(tmp_path):
    ints = load_label_map(write(tmp_path, "ints.yaml", "- 3\n- 1\n- 2\n"))
    strs = load_label_map(write(tmp_path, "strs.json", '{"0": "3", "1": "1", "2": "2"}'))
    assert ints.labels == {0: "3", 1: "1", 2: "2"} and compare_label_maps(ints, strs).ok


def test_split_source_keeps_an_existing_file_with_a_hash(tmp_path):
    odd = tmp_path / "a#b.txt"
    odd.write_text("x\ny\n")
    assert split_source(str(odd)) == (str(odd), None)
    assert split_source("serving.yaml#postprocess.class_names") == ("serving.yaml", "postprocess.class_names")


@pytest.mark.parametrize("name,text,spec,phrase", [
    ("empty.json", "", "", "is empty"),
    ("empty.txt", "\n\n", "", "has no labels"),
    ("dup.txt", "cat\ndog\ncat\n", "", "appears twice"),
    ("dup.json", '["cat", "dog", "cat"]', "", "appears twice"),
    ("twoidx.json", '{"cat": 0, "dog": 0}', "", "is given to"),
    ("nested.yaml", "a:\n  b: [x, y]\n", "#a.c", "no key 'c' at a; keys there: 'b'"),
    ("deep.yaml", "a:\n  b: [x, y]\n", "#a.b[5]", "not an index of the list of 2 items"),
    ("bool.json", '[true, "x"]', "", "not a string or number"),
    ("neg.json", '{"-1": "x"}', "", "negative"),
    ("mixed.json", '{"a": "b"}', "", "neither an id2label"),
    ("scalar.json", '"cat"', "", "expected a list of labels"),
    ("bad.json", '["cat",', "", "invalid JSON"),
    ("bad.yaml", "a: [x\n", "", "invalid YAML"),
    ("text.txt", "cat\n", "#a.b", "needs a JSON or YAML file"),
])
def test_bad_label_files_raise_input_errors_naming_the_file(tmp_path, name, text, spec, phrase):
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as info:
        load_label_map(path + spec)
    assert phrase in str(info.value) and name in str(info.value)


def test_missing_key_error_carries_the_yaml_line(tmp_path):
    path = write(tmp_path, "s.yaml", "model: m\npostprocess:\n  threshold: 0.5\n")
    with pytest.raises(InputError) as info:
        load_label_map(path + "#postprocess.class_names")
    assert info.value.line == 2 and info.value.field == "postprocess.class_names"


def test_unquoted_integer_yaml_keys_are_read_as_indices(tmp_path):
    path = write(tmp_path, "id2label.yaml", "id2label:\n  1: dog\n  0: cat\n")
    quoted = write(tmp_path, "quoted.yaml", "id2label:\n  '0': cat\n  '1': dog\n")
    assert load_label_map(path).labels == load_label_map(quoted).labels == {0: "cat", 1: "dog"}
    bad = write(tmp_path, "bad.yaml", "id2label:\n  true: cat\n")
    with pytest.raises(InputError) as info:
        load_label_map(bad)
    assert info.value.line == 2 and "not a string" in str(info.value)


def test_missing_file():
    with pytest.raises(InputError, match="file not found"):
        load_label_map("/nonexistent/labels.json")


# ----------------------------------------------------------------------------- comparing


def test_a_reordered_list_is_a_permutation_with_the_exact_mapping():
    serving = sorted(DIGITS)
    report = compare_label_maps(DIGITS, serving)
    assert report.is_permutation and not report.missing and not report.extra
    assert [f.kind for f in report.findings] == ["permutation"]
    assert report.permutation == {i: serving.index(n) for i, n in enumerate(DIGITS)}
    assert len(report.mismatched_indices) == 9  # "six" keeps index 6
    fields = report.fields()
    assert fields["permutation"]["0"] == serving.index("zero") and fields["accuracy"] is None
    json.dumps(fields)


def test_insertion_shifts_indices_and_names_the_extra_label():
    report = compare_label_maps(["cat", "dog", "eel"], ["background", "cat", "dog", "eel"])
    kinds = [f.kind for f in report.findings]
    assert kinds == ["mismatched_indices", "extra_in_serving"]
    assert report.extra == ("background",) and report.permutation == {0: 1, 1: 2, 2: 3}
    assert report.mismatched_indices[-1].to_json() == {"index": 3, "train": None, "serving": "eel"}


def test_missing_and_renamed_labels():
    report = compare_label_maps(["Cat", "dog", "eel"], ["cat", "dog"])
    kinds = sorted(f.kind for f in report.findings)
    assert kinds == ["label_renamed", "mismatched_indices", "missing_in_serving"]
    assert report.renamed == (("Cat", "cat"),) and report.missing == ("Cat", "eel")
    missing = next(f for f in report.findings if f.kind == "missing_in_serving")
    assert missing.evidence["labels"] == ["eel"]  # the renamed one is reported as renamed, not lost


def test_index_gaps_are_reported_but_equal_maps_stay_healthy():
    gap = {0: "a", 2: "c"}
    report = compare_label_maps(gap, {"2": "c", "0": "a"})
    assert [f.kind for f in report.findings] == ["index_gap", "index_gap"]
    assert report.fields()["train_labels"] == ["a", None, "c"]


def test_decode_accuracy_collapses_under_a_permutation_with_real_predictions():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x_tr, x_te, y_tr, y_te = train_test_split(x / 16.0, y, random_state=0, stratify=y)
    predicted = LogisticRegression(max_iter=500).fit(x_tr, y_tr).predict_proba(x_te).argmax(1)
    rows = [(DIGITS[t], int(p)) for t, p in zip(y_te, predicted)]
    report = compare_label_maps(DIGITS, sorted(DIGITS), predictions=rows)
    assert report.accuracy.training_mapping > 0.93
    assert report.accuracy.serving_mapping < 0.15
    assert [f.kind for f in report.findings] == ["permutation", "accuracy_drop"]
    healthy = compare_label_maps(DIGITS, list(DIGITS), predictions=rows)
    assert healthy.ok and healthy.accuracy.serving_mapping == healthy.accuracy.training_mapping


def test_predictions_that_do_not_fit_the_training_map():
    m = LabelMap({0: "a", 1: "b"})
    with pytest.raises(InputError, match="no label in the training map"):
        decode_accuracy(m, m, [("a", 5)], source="p.csv")
    with pytest.raises(InputError, match="is not a training label"):
        decode_accuracy(m, m, [("zebra", 0)], source="p.csv")
    with pytest.raises(InputError, match="no predictions"):
        decode_accuracy(m, m, [], source="p.csv")
    short = decode_accuracy(m, LabelMap({0: "a"}), [("b", 1), ("a", 0)])
    assert short.undecodable == 1 and short.serving_mapping == 0.5


def test_label_map_refuses_empty_values():
    with pytest.raises(InputError, match="empty"):
        label_map([])
    with pytest.raises(InputError, match="empty label"):
        label_map(["a", "  "])


def test_kinds_are_documented():
    assert set(KINDS) == {"permutation", "mismatched_indices", "missing_in_serving", "extra_in_serving",
                          "label_renamed", "index_gap", "accuracy_drop", "missing_predictions"}


# ----------------------------------------------------------------------------- the label_order shim


class _Target:
    def __init__(self, model):
        self.model, self.step, self.attempt = model, None, 1
        self.points, self.faults = {}, []

    def subscribe(self, point, callback):
        self.points.setdefault(point, []).append(callback)

    def reach(self, step):
        for callback in self.points.get("step", []):
            callback("step", {"step": step})

    def record_fault(self, injector, **attributes):
        self.faults.append((injector, attributes))


class _Service:
    def __init__(self):
        self.class_names = list(DIGITS)


def test_label_order_reorders_in_its_window_and_reverts():
    service, shim = _Service(), build("label_order", {"order": "sorted", "start_step": 2, "steps": 2})
    target = _Target(service)
    shim.apply(target)
    seen = []
    for step in range(5):
        target.reach(step)
        seen.append(service.class_names[0])
    assert seen == ["zero", "zero", "eight", "eight", "zero"]
    assert target.faults == [("label_order", {"step": 2, "order": "sorted", "moved": 9,
                                              "attribute": "class_names"})]
    target.reach(2)
    shim.revert()
    assert service.class_names == DIGITS


def test_reorder_orders_and_shim_errors():
    assert reorder(["a", "b", "c"], "rotate") == ["b", "c", "a"]
    assert reorder(["a", "b", "c"], "swap", swap=(0, 2)) == ["c", "b", "a"]
    assert reorder(["a", "b", "c"], "reversed") == ["c", "b", "a"]
    with pytest.raises(InjectionError, match="out of range"):
        reorder(["a"], "swap", swap=(0, 3))
    with pytest.raises(InjectionError, match="leaves class_names unchanged"):
        build("label_order", {"order": "sorted", "start_step": 0}).apply(_Target(type("S", (), {
            "class_names": ["a", "b"]})()))
    with pytest.raises(InjectionError, match="list of class names"):
        build("label_order", {"start_step": 0}).apply(_Target(object()))
    with pytest.raises(InjectionError, match="order"):
        build("label_order", {"order": "shuffle", "start_step": 0})
