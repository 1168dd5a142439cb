"""faultlib.fingerprint.load: fingerprint files and run records read through the hardened readers; every bad
input is an InputError naming the file and the field, and fuzzed documents never raise anything else."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.errors import InputError
from faultlib.fingerprint import collect, diff, dumps, load
from faultlib.fingerprint.reader import LIMITS


@pytest.fixture(scope="module")
def real() -> dict:
    return collect()


def write(tmp_path, data, name="fp.json"):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def refused(path, phrase: str, field: str | None = None) -> InputError:
    with pytest.raises(InputError, match=phrase) as info:
        load(path)
    assert info.value.path == str(path)
    if field is not None:
        assert info.value.field == field
    return info.value


def test_a_written_fingerprint_loads_back_unchanged(tmp_path, real):
    assert load(write(tmp_path, dumps(real))) == real


def test_a_run_record_gives_its_fingerprint(tmp_path, real):
    record = {"record_version": 1, "run_id": "20261130T120048Z-3fa2c1", "fingerprint": real, "verdict": "passed"}
    assert load(write(tmp_path, json.dumps(record), "run.json")) == real


def test_an_older_record_reads_null_versions_as_absent(tmp_path):
    legacy = {"python": "3.11.7", "implementation": "cpython", "platform": "Linux", "machine": "x86_64",
              "packages": {"torch": "2.5.1", "PyYAML": "6.0.1", "onnx": None, "faultlib-ml": "0.1.0"}}
    fp = load(write(tmp_path, json.dumps({"run_id": "r", "fingerprint": legacy}), "run.json"))
    assert fp["packages"] == {"faultlib-ml": "0.1.0", "pyyaml": "6.0.1", "torch": "2.5.1"}
    assert "torch" not in fp and "devices" not in fp and "format" not in fp


@pytest.mark.parametrize("data, phrase, field", [
    (b"", "is empty", None),
    (b"  \n", "is empty", None),
    (b"{\"python\": \"3.11.7\", \"packages\": {\"torch\": \"2.", "invalid JSON", None),  # truncated
    (b"python 3.11.7\ntorch 2.13.0\n", "invalid JSON", None),  # pip freeze, not JSON
    (b"[\"python\", \"packages\"]", "is a list, not a fingerprint object", "(root)"),
    (b"{\"resourceSpans\": []}", "has no python and packages: not a fingerprint", "(root)"),  # an OTLP trace
    (b"{\"python\": 3.11, \"packages\": {}}", "must be a version string", "python"),
    (b"{\"python\": \"3.11.7\", \"packages\": [\"torch\"]}", "must be an object", "packages"),
    (b"{\"format\": 1, \"python\": \"3.11.7\", \"packages\": {\"torch\": 2.6}}", "non-empty string", "packages.torch"),
    (b"{\"format\": 1, \"python\": \"3.11.7\", \"packages\": {\"torch\": null}}", "non-empty string", "packages.torch"),
    (b"{\"format\": 2, \"python\": \"3.11.7\", \"packages\": {}}", "format 2 is not one this faultlib reads", "format"),
    (b"{\"python\": \"3.11.7\", \"packages\": {\"PyYAML\": \"6.0\", \"pyyaml\": \"5.4\"}}", "twice", "packages.pyyaml"),
    (b"{\"python\": \"3.11.7\", \"packages\": {}, \"torch\": {\"version\": 2}}", "must be a string", "torch.version"),
    (b"{\"python\": \"3.11.7\", \"packages\": {}, \"torch\": {\"version\": \"2\", \"debug\": \"no\"}}", "bool",
     "torch.debug"),
    (b"{\"python\": \"3.11.7\", \"packages\": {}, \"devices\": [1]}", "string type", "devices[0]"),
    (b"{\"python\": \"3.11.7\", \"packages\": {\"a\": \"1\", \"a\": \"2\"}}", "duplicate key", None),
    (b"{\"python\": \"3.11.7\", \"packages\": {}, \"x\": NaN}", "not a JSON number", None),
    (b"\xff\xfe{}", "UTF-8", None),
])
def test_bad_input_names_the_file_and_field(tmp_path, data, phrase, field):
    refused(write(tmp_path, data), phrase, field)


def test_a_run_record_field_is_named_inside_fingerprint(tmp_path):
    record = {"run_id": "r", "fingerprint": {"python": "3.11.7", "packages": {"torch": ["2.6"]}}}
    refused(write(tmp_path, json.dumps(record), "run.json"), "non-empty string", "fingerprint.packages.torch")


def test_a_huge_file_is_refused_before_it_is_parsed(tmp_path, real):
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.write(dumps(real).encode()[:-3])
        fh.truncate(LIMITS.max_bytes + 1)  # sparse: no 16 MiB written
    refused(path, "the limit is 16 MiB: if you trust the file, set FAULTLIB_MAX_FILE_BYTES=17MiB")


def test_missing_file_directory_and_symlink_are_refused(tmp_path, real):
    refused(tmp_path / "nope.json", "file not found")
    refused(tmp_path, "is a directory")
    target = write(tmp_path, dumps(real))
    (tmp_path / "link.json").symlink_to(target)
    refused(tmp_path / "link.json", "symbolic link")


# -- fuzzing -------------------------------------------------------------------------------------

json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False,
                           allow_infinity=False) | st.text(max_size=12),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=4), max_leaves=12)
FIELDS = ["format", "python", "implementation", "platform", "machine", "packages", "torch", "devices"]


def small(real: dict) -> dict:
    fp = copy.deepcopy(real)
    fp["packages"] = dict(list(fp["packages"].items())[:5])
    return fp


@st.composite
def mutated(draw, base: dict) -> dict:
    fp = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(["top", "package", "torch", "delete"]))
        if where == "top":
            fp[draw(st.sampled_from(FIELDS))] = draw(json_values)
        elif where == "delete":
            fp.pop(draw(st.sampled_from(FIELDS)), None)
        elif where == "package" and isinstance(fp.get("packages"), dict):
            fp["packages"][draw(st.sampled_from([*fp["packages"], "torch", "Torch", "new"]))] = draw(json_values)
        elif where == "torch" and isinstance(fp.get("torch"), dict):
            fp["torch"][draw(st.sampled_from(["version", "cuda", "cudnn", "debug", "config"]))] = draw(json_values)
    return fp


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_fingerprints_load_and_diff_or_raise_input_error(tmp_path, real, data):
    base = small(real)
    fp = data.draw(mutated(base))
    wrap = data.draw(st.booleans())
    doc = {"run_id": "r", "fingerprint": fp} if wrap else fp
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(doc))
    try:
        loaded = load(path)
    except InputError as exc:
        assert exc.path == str(path) and (exc.field is not None or exc.line is not None)
        loaded = None
    if loaded is not None:
        for old, new in ((loaded, base), (base, loaded)):
            d = diff(old, new)
            assert isinstance(d.to_json(), dict) and isinstance(d.selects_all(), bool)
    try:  # straight into diff, without load
        diff(fp, base)
    except InputError as exc:
        assert exc.field and exc.field.startswith("old")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 4000), flips=st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 255)), max_size=3))
def test_damaged_bytes_load_or_raise_input_error(tmp_path, real, cut, flips):
    data = bytearray(dumps(small(real)).encode())
    for at, value in flips:
        data[at % len(data)] = value
    path = tmp_path / "damaged.json"
    path.write_bytes(bytes(data[:cut]))
    try:
        load(path)
    except InputError as exc:
        assert exc.path == str(path)
