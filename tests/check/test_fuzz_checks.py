"""No input makes a `faultlib check` print a traceback: Hypothesis writes adversarial files (deep nesting, huge
numbers, huge counts, non-finite values, random bytes behind a real magic number) for every check that reads
files, and each call must exit 0, 1 or 2 with one JSON object on stdout.

The checks run in this process (``faultlib.cli.app.main``), as the console script runs them, so a hundred
examples cost seconds, not minutes. `check batching` imports the user's module by design and is left out.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.cli.app import main

pytest.importorskip("pandas")

SETTINGS = settings(max_examples=int(__import__("os").environ.get("FAULTLIB_FUZZ_EXAMPLES", "25")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                            HealthCheck.too_slow])
HUGE = st.sampled_from([10 ** 30, -(10 ** 30), 2 ** 63, 2 ** 64 + 1, 1e300, -1e300, 1e308, 5e-324, 0])
NUMBERS = st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True), HUGE)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=12))
JSONISH = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                       max_leaves=30)


def run_check(*argv: str) -> tuple[int, dict]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["check", *argv, "--json"])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    assert "Traceback" not in err.getvalue(), err.getvalue()[-3000:]
    assert code in (0, 1, 2), f"{code}; {err.getvalue()[-2000:]}"
    return code, json.loads(out.getvalue())


def _deep(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "list" else ('{"a":' * depth + "1" + "}" * depth)


def _csv(values: list) -> str:
    return "key,value\n" + "".join(f"{i % 5},{v}\n" for i, v in enumerate(values))


@SETTINGS
@given(train=JSONISH, serving=JSONISH)
def test_labels(tmp_path, train, serving):
    (tmp_path / "t.json").write_text(json.dumps(train))
    (tmp_path / "s.json").write_text(json.dumps(serving))
    run_check("labels", str(tmp_path / "t.json"), str(tmp_path / "s.json"))


@SETTINGS
@given(ref=st.lists(st.one_of(NUMBERS, st.just(""), st.text(max_size=5)), min_size=1, max_size=60),
       cur=st.lists(st.one_of(NUMBERS, st.just("")), min_size=1, max_size=60))
def test_drift_and_align(tmp_path, ref, cur):
    (tmp_path / "r.csv").write_text(_csv(ref))
    (tmp_path / "c.csv").write_text(_csv(cur))
    run_check("drift", str(tmp_path / "r.csv"), str(tmp_path / "c.csv"))
    run_check("align", str(tmp_path / "r.csv"), str(tmp_path / "c.csv"), "--on", "key")


@SETTINGS
@given(v1=JSONISH, v2=JSONISH, depth=st.integers(1, 3000))
def test_features(tmp_path, v1, v2, depth):
    (tmp_path / "v1.json").write_text(json.dumps({"features": v1}))
    (tmp_path / "v2.yaml").write_text(_deep(depth, "list"))
    run_check("features", str(tmp_path / "v1.json"), str(tmp_path / "v1.json"))
    run_check("features", str(tmp_path / "v1.json"), str(tmp_path / "v2.yaml"))
    (tmp_path / "v3.json").write_text(json.dumps({"features": v2}))
    run_check("features", str(tmp_path / "v1.json"), str(tmp_path / "v3.json"))


SOURCES = st.one_of(
    st.text(max_size=200),
    st.integers(1, 3000).map(lambda n: "async def f(x):\n    return " + " + ".join(["x"] * n) + "\n"),
    st.integers(1, 200).map(lambda n: "async def f():\n" + "".join("    " * (i + 1) + "if x:\n" for i in range(n))
                            + "    " * (n + 1) + "pass\n"),
    st.integers(1, 3000).map(lambda n: "x = " + "(" * n + "1" + ")" * n + "\n"),
    st.integers(1, 60).map(lambda n: "".join(f"def f{i}(X):\n    return f{i - 1}(X)\n" if i else
                                             "from sklearn.preprocessing import StandardScaler\n"
                                             "def f0(X):\n    return StandardScaler().fit_transform(X)\n"
                                             for i in range(n)) + f"X = f{n - 1}([[1e300]])\n"),
)


@SETTINGS
@given(source=SOURCES)
def test_leakage_and_blocking(tmp_path, source):
    (tmp_path / "s.py").write_text(source)
    run_check("leakage", str(tmp_path / "s.py"))
    run_check("blocking", str(tmp_path / "s.py"))
    run_check("resume", str(tmp_path / "s.py"))
    notebook = {"cells": [{"cell_type": "code", "source": source}], "nbformat": 4}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    run_check("leakage", str(tmp_path / "n.ipynb"))


MAGICS = st.sampled_from([b"", b"PK\x03\x04", b"\x80\x02", b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.",
                          b"\x93NUMPY", b"\x08\x00\x00\x00\x00\x00\x00\x00{", b"\x08\x01\x12"])


@SETTINGS
@given(magic=MAGICS, body=st.binary(max_size=300))
def test_checkpoints_onnx_and_state_dict(tmp_path, magic, body):
    (tmp_path / "a.pt").write_bytes(magic + body)
    (tmp_path / "m.onnx").write_bytes(magic + body)
    run_check("checkpoints", str(tmp_path / "a.pt"))
    run_check("onnx", str(tmp_path / "m.onnx"))
    run_check("state-dict", str(tmp_path / "a.pt"), "--reference", str(tmp_path / "a.pt"))


@SETTINGS
@given(header=st.dictionaries(st.text(max_size=5), JSONISH, max_size=4))
def test_safetensors_headers(tmp_path, header):
    text = json.dumps(header).encode()
    (tmp_path / "h.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + b"\0" * 64)
    run_check("checkpoints", str(tmp_path / "h.safetensors"))


SEGMENTS = st.lists(st.fixed_dictionaries({
    "address": st.one_of(st.integers(0, 2 ** 40), HUGE), "total_size": st.one_of(st.integers(0, 2 ** 30), HUGE),
    "blocks": st.lists(st.fixed_dictionaries({"size": st.one_of(st.integers(0, 2 ** 20), HUGE),
                                              "state": st.sampled_from(["active_allocated", "inactive", 3])}),
                       max_size=4)}), max_size=4)


@SETTINGS
@given(segments=SEGMENTS, traces=st.lists(st.lists(st.fixed_dictionaries({
    "action": st.sampled_from(["alloc", "free_completed", "segment_alloc", "oom"]),
    "addr": st.one_of(st.integers(0, 2 ** 40), HUGE), "size": st.one_of(st.integers(0, 2 ** 20), HUGE)}),
    max_size=6), max_size=2))
def test_memory(tmp_path, segments, traces):
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"segments": segments, "device_traces": traces}, protocol=4))
    run_check("memory", str(tmp_path / "s.pickle"))
