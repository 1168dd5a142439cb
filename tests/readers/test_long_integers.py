"""A run of more digits than Python converts (4,300, ``sys.get_int_max_str_digits()``) is bad input, never a
traceback: each reader that turns your text into an integer refuses it as out of range (exit 2) and still reads
an ordinary number. Found by feeding 5,000-digit numbers to every reader: a YAML integer, a key path index, an
``id2label`` key, ``FAULTLIB_MAX_FILE_BYTES``, ``--target opset=N`` and a package version in a fingerprint
each ended in ``ValueError: Exceeds the limit (4300 digits)``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from faultlib.errors import InputError

HUGE = "7" * 5000


def test_the_helper_reads_64_bit_numbers_and_answers_none_beyond():
    from faultlib.readers.integers import decimal

    assert decimal("9223372036854775807") == (1 << 63) - 1
    assert decimal(" -0000000000000000000000042 ") == -42  # leading zeros are not digits of the value
    assert decimal(HUGE) is None and decimal("1" + "0" * 19) is None
    with pytest.raises(ValueError):
        decimal("12a")


def test_a_yaml_integer_of_5000_digits_is_out_of_range_with_its_line():
    from faultlib.readers import load_yaml

    assert load_yaml("bins: [1, 25]\n", "features.yaml").data == {"bins": [1, 25]}
    with pytest.raises(InputError) as info:
        load_yaml(f"name: x\nbins: [1, {HUGE}]\n", "features.yaml")
    assert info.value.line == 2 and info.value.field == "bins[1]" and "out of range" in info.value.message
    assert len(info.value.message) < 200, "the message shows the number's start and its length, not 5,000 digits"


@pytest.mark.parametrize("key", [f"classes[{HUGE}]", f"classes.{HUGE}"], ids=["bracket", "dotted"])
def test_a_key_path_index_of_5000_digits_is_refused(key):
    from faultlib.readers.keypath import resolve_key_path

    doc = {"classes": ["cat", "dog"]}
    assert resolve_key_path(doc, "classes[1]", "labels.json") == "dog"
    assert resolve_key_path(doc, "classes.0", "labels.json") == "cat"
    with pytest.raises(InputError) as info:
        resolve_key_path(doc, key, "labels.json")
    assert info.value.path == "labels.json"


def test_an_id2label_key_of_5000_digits_is_refused():
    from faultlib.detect.data.label_maps import label_map

    assert label_map({"0": "cat", "1": "dog"}).labels == {0: "cat", 1: "dog"}
    with pytest.raises(InputError, match="digits is larger than"):
        label_map({HUGE: "cat", "1": "dog"}, path="id2label.json")


def test_a_size_of_5000_digits_is_not_a_size():
    from faultlib.readers.sizes import parse_size

    assert parse_size("2GiB") == 2 << 30
    with pytest.raises(InputError, match="5,000 digits") as info:
        parse_size(HUGE)
    assert info.value.field == "FAULTLIB_MAX_FILE_BYTES"


def test_an_opset_of_5000_digits_is_out_of_range():
    from faultlib.detect.serving.onnx.targets import parse_target

    assert parse_target("opset=17").max_opset == {"": 17}
    with pytest.raises(InputError, match="out of range") as info:
        parse_target(f"opset={HUGE}")
    assert info.value.field == "--target"


def test_a_version_of_5000_digits_crosses_no_known_change():
    from faultlib.fingerprint.changes import KnownChange, crosses

    change = KnownChange("torch", "2.6.0", "weights_only default", "https://example.org")
    assert crosses(change, "2.5.1", "2.13.0")
    assert not crosses(change, "2.5.1", HUGE)


def test_the_cli_exits_2_without_a_traceback(tmp_path):
    (tmp_path / "train.json").write_text(json.dumps({HUGE: "cat", "1": "dog"}))
    (tmp_path / "serving.txt").write_text("cat\ndog\n")
    got = subprocess.run([sys.executable, "-m", "faultlib", "check", "labels", "train.json", "serving.txt"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "COLUMNS": "200"})
    assert got.returncode == 2, got.stderr
    assert "Traceback" not in got.stderr and "train.json" in got.stderr
