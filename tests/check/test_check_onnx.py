"""`faultlib check onnx` in a temp directory: a torch MLP trained on breast_cancer and exported at several opsets;
every target form; exit codes 0/1/2 with the file named; JSON fields; --compare-torch. Files that are not ONNX,
truncated, corrupt or escaping models, and the README's command run black-box (their own process: a reader that
crashed on hostile bytes would take only that process down); the rest calls the same entry in this process
(:func:`tests.conftest.cli_in_process`: a fresh interpreter per call imported onnx, onnxruntime or torch again)."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from tests.conftest import REPO, built_once, cli, cli_in_process

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("torch")
pytest.importorskip("sklearn")

FIELDS = {"detector", "ok", "findings", "model", "target", "level", "levels", "nodes_checked", "nodes", "fix",
          "comparison"}
FAULT_KINDS = ["ir_version_unsupported", "model_opset_unsupported", "op_unsupported_by_target"]

FACTORY = '''
import numpy as np
import torch
from pathlib import Path
from torch import nn

print("building the model")  # user output must not break --json


def build():
    model = nn.Sequential(nn.Linear(30, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 2))
    model.load_state_dict(torch.load(Path(__file__).with_name("weights.pt"), weights_only=True))
    return model.eval()


def drifted():
    model = build()
    model[1].eps = 0.5
    return model


def broken():
    raise RuntimeError("no weights here")


NOT_CALLABLE = 3
'''


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """weights.pt, factory.py, sample.npy, objects.npy (an object array) and the model exported at opsets 17,
    19, 22 (TorchScript exporter): made once per suite run and shared by the xdist workers (read-only:
    :func:`tests.conftest.built_once`)."""
    return built_once(tmp_path_factory, "check-onnx-files", _make_files)


def _make_files(out):
    import io
    import warnings

    import torch
    from sklearn.datasets import load_breast_cancer
    from torch import nn

    x, y = load_breast_cancer(return_X_y=True)
    x = ((x - x.mean(0)) / x.std(0)).astype(np.float32)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(30, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(40):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(y)).backward()
        optimizer.step()
    model.eval()
    torch.save(model.state_dict(), out / "weights.pt")
    (out / "factory.py").write_text(textwrap.dedent(FACTORY))
    np.save(out / "sample.npy", x[:80])
    np.save(out / "objects.npy", np.array([{"x": 1}], dtype=object), allow_pickle=True)
    for opset in (17, 19, 22):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.from_numpy(x[:4]),), buffer, dynamo=False, opset_version=opset,
                              input_names=["features"], output_names=["logits"], dynamic_axes={"features": {0: "b"}})
        (out / f"mlp{opset}.onnx").write_bytes(buffer.getvalue())


def check(*args, cwd):
    return cli_in_process("check", "onnx", *args, cwd=cwd)


def check_black_box(*args, cwd):
    return cli("check", "onnx", *args, cwd=cwd, timeout=180)


def out_of(proc):
    return json.loads(proc.stdout)


@pytest.mark.parametrize("target, code, found", [
    ("triton==23.12", 1, FAULT_KINDS),
    ("onnxruntime==1.16", 1, FAULT_KINDS),
    ("onnxruntime==1.20.1", 1, ["model_opset_unsupported"]),
    ("opset=19", 1, ["model_opset_unsupported", "op_unsupported_by_target"]),
    ("opset=22", 0, []),
    (None, 0, []),  # the installed onnxruntime implements opset 22
])
def test_every_target_form_on_an_opset_22_export(files, target, code, found):
    args = ["mlp22.onnx", "--json"] + (["--target", target] if target else [])
    proc = check(*args, cwd=files)
    assert proc.returncode == code, proc.stdout + proc.stderr
    out = out_of(proc)
    assert set(out) == FIELDS
    assert sorted({f["kind"] for f in out["findings"]}) == found
    assert out["ok"] is (code == 0) and out["nodes_checked"] == 4 and out["comparison"] is None
    assert out["model"]["opset_import"] == {"ai.onnx": 22} and out["model"]["ops"]["Gelu"] == 1
    for finding in out["findings"]:
        assert finding["detector"] == "onnx" and finding["severity"] == "error"
        if finding["kind"] == "op_unsupported_by_target":
            assert finding["location"] == {"node": "/2/Gelu", "op": "Gelu", "index": 2}
    assert out["target"]["spec"] == (target or "installed")
    tables = {None: "installed registry", "opset=19": None, "opset=22": None}
    assert out["target"]["kernels"] == tables.get(target, "release table")
    level = {None: "verified", "opset=22": "likely"}.get(target, "blocked")
    assert out["level"] == level and len(out["nodes"]) == 4
    if level != "blocked":
        assert {n["level"] for n in out["nodes"]} == {level} and out["levels"][level] == 4


def test_fix_advice_and_a_clean_export_at_the_target_opset(files):
    out = out_of(check("mlp22.onnx", "--target", "triton==23.12", "--json", cwd=files))
    assert out["fix"]["opset"] == 19 and out["fix"]["version_converter"]["ok"] is False
    assert "opset_version=19" in out["fix"]["advice"]
    assert out_of(check("mlp22.onnx", "--target", "onnxruntime==1.20", "--json", cwd=files))["fix"][
        "version_converter"]["ok"] is True
    proc = check("mlp19.onnx", "--target", "triton==23.12", "--json", cwd=files)
    assert proc.returncode == 0 and out_of(proc)["findings"] == [] and out_of(proc)["fix"] is None
    proc = check("mlp17.onnx", "--target", "triton==23.12", cwd=files)  # the human table
    assert proc.returncode == 0 and "onnx: ok" in proc.stdout and "Triton 23.12 ships onnxruntime 1.16.3" in proc.stdout


def test_triton_release_without_an_onnx_backend(files):
    proc = check("mlp17.onnx", "--target", "triton==24.02", "--json", cwd=files)
    assert proc.returncode == 1
    assert [f["kind"] for f in out_of(proc)["findings"]] == ["no_onnx_backend"]


def test_compare_torch_reports_max_abs_and_rel_error(files):
    proc = check("mlp19.onnx", "--target", "triton==23.12", "--compare-torch", "factory.py:build", "--input",
                 "sample.npy", "--json", cwd=files)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    comparison = out_of(proc)["comparison"]
    assert comparison["ok"] is True and comparison["input"]["shape"] == [80, 30]
    assert 0 < comparison["max_abs_error"] < 1e-5 and comparison["max_rel_error"] < 1e-3
    assert comparison["outputs"][0]["name"] == "logits" and comparison["outputs"][0]["allclose"] is True
    assert comparison["runtime"].startswith("onnxruntime ")
    proc = check("mlp19.onnx", "--compare-torch", "factory.py:drifted", "--input", "sample.npy", "--json", cwd=files)
    assert proc.returncode == 1
    out = out_of(proc)
    assert [f["kind"] for f in out["findings"]] == ["output_mismatch"]
    assert out["comparison"]["max_abs_error"] > 1e-3
    proc = check("mlp19.onnx", "--compare-torch", "factory.py:build", "--input", "sample.npy", cwd=files)
    assert proc.returncode == 0 and "max abs error" in proc.stdout and "building the model" not in proc.stdout


def test_fail_on_error_ignores_warnings(files, tmp_path):
    from onnx import TensorProto as T
    from onnx import helper as h

    graph = h.make_graph([h.make_node("Fused", ["x"], ["y"], name="g", domain="com.example")], "g",
                         [h.make_tensor_value_info("x", T.FLOAT, [2])], [h.make_tensor_value_info("y", T.FLOAT, [2])])
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 20), h.make_opsetid("com.example", 1)]),
              tmp_path / "custom.onnx")
    proc = check("custom.onnx", "--target", "opset=20", "--json", cwd=tmp_path)
    assert proc.returncode == 1 and [f["kind"] for f in out_of(proc)["findings"]] == ["custom_op_unchecked"]
    assert out_of(proc)["findings"][0]["severity"] == "warning" and out_of(proc)["level"] == "unverified"
    assert check("custom.onnx", "--target", "opset=20", "--fail-on", "error", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("name, content, phrase", [
    ("readme.onnx", b"# not a model\n", "is not an ONNX model"),
    ("empty.onnx", b"", "is empty"),
])
def test_files_that_are_not_onnx_exit_2_naming_the_file(tmp_path, name, content, phrase):
    (tmp_path / name).write_bytes(content)
    proc = check_black_box(name, cwd=tmp_path)
    assert proc.returncode == 2 and phrase in proc.stderr and name in proc.stderr and "Traceback" not in proc.stderr
    proc = check_black_box(name, "--json", cwd=tmp_path)
    assert proc.returncode == 2 and out_of(proc)["file"] == name and out_of(proc)["error"] == "InputError"


def test_truncated_corrupt_and_escaping_models_exit_2(files, tmp_path):
    data = (files / "mlp22.onnx").read_bytes()
    (tmp_path / "cut.onnx").write_bytes(data[: len(data) - 200])
    proc = check_black_box("cut.onnx", cwd=tmp_path)
    assert proc.returncode == 2 and "truncated, corrupt" in proc.stderr
    model = onnx.load_model_from_string(data)
    model.graph.node[1].input[0] = "missing_tensor"
    onnx.save(model, tmp_path / "corrupt.onnx")
    proc = check_black_box("corrupt.onnx", cwd=tmp_path)
    assert proc.returncode == 2 and "reads 'missing_tensor'" in proc.stderr
    inner = tmp_path / "models"
    inner.mkdir()
    onnx.save_model(onnx.load_model_from_string(data), inner / "model.onnx", save_as_external_data=True,
                    location="w.bin", size_threshold=0)
    assert check_black_box("models/model.onnx", cwd=tmp_path).returncode == 0
    (tmp_path / "w.bin").write_bytes((inner / "w.bin").read_bytes())
    escaping = onnx.load(str(inner / "model.onnx"), load_external_data=False)
    for tensor in escaping.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = "../w.bin"
    onnx.save(escaping, inner / "model.onnx")
    proc = check_black_box("models/model.onnx", "--json", cwd=tmp_path)
    assert proc.returncode == 2 and "leaves its directory" in out_of(proc)["message"]
    assert out_of(proc)["file"] == "models/model.onnx"


@pytest.mark.parametrize("args, phrase", [
    (["missing.onnx"], "file not found"),
    (["mlp22.onnx", "--target", "tensorrt==10"], "is not a target"),
    (["mlp22.onnx", "--target", "triton==19.01"], "no data for Triton 19.01"),
    (["mlp22.onnx", "--target", "onnxruntime==1.99"], "no data for onnxruntime 1.99"),
    (["mlp22.onnx", "--compare-torch", "factory.py:build"], "go together"),
    (["mlp22.onnx", "--input", "sample.npy"], "go together"),
    (["mlp22.onnx", "--compare-torch", "weights.pt:build", "--input", "sample.npy"], "not a Python file"),
    (["mlp22.onnx", "--compare-torch", "nowhere.py:build", "--input", "sample.npy"], "file not found"),
    (["mlp22.onnx", "--compare-torch", "factory.py:nothing", "--input", "sample.npy"], "defines no 'nothing'"),
    (["mlp22.onnx", "--compare-torch", "factory.py:broken", "--input", "sample.npy"], "no weights here"),
    (["mlp22.onnx", "--compare-torch", "factory.py:NOT_CALLABLE", "--input", "sample.npy"], "not a factory"),
    (["mlp22.onnx", "--compare-torch", "factory.py:build", "--input", "objects.npy"],
     "object array: it needs pickle, which is refused"),
    (["mlp22.onnx", "--compare-torch", "factory.py:build", "--input", "factory.py"], "not a .npy"),
])
def test_bad_usage_exits_2_with_a_message(files, args, phrase):
    proc = check(*args, cwd=files)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert phrase in proc.stderr and "Traceback" not in proc.stderr


def test_kinds_are_listed(files):
    proc = cli_in_process("check", "--list-kinds", "--json", cwd=files)
    assert proc.returncode == 0
    listed = json.loads(proc.stdout)["onnx"]
    from faultlib.check.onnx import KINDS

    assert listed == KINDS and "model_opset_unsupported" in listed and "output_mismatch" in listed


def test_readme_example_runs_from_the_repository(tmp_path):
    """The README's two commands, taken from it (tests/test_readme.py leaves them to this test): a generator
    script in the case writes the model and the sample, then the check, as written plus --json."""
    import subprocess
    import sys

    from tests.test_readme import readme_argv

    make = readme_argv("python cases/onnx_op_compat/examples/make_model.py", tmp_path)
    proc = subprocess.run([sys.executable, *make[1:]], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    proc = cli(*readme_argv("faultlib check onnx", tmp_path, "--json")[1:], cwd=REPO, timeout=180)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    out = out_of(proc)
    assert sorted({f["kind"] for f in out["findings"]}) == FAULT_KINDS
    assert out["comparison"]["ok"] is True and out["comparison"]["max_abs_error"] < 1e-4


def _one_add(initializer):
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [initializer])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("make, phrase", [
    (lambda TP: TP(name="w", data_type=TP.FLOAT, dims=[2**31, 2**31], raw_data=b"\0" * 16), "holds 16 bytes"),
    (lambda TP: TP(name="w", data_type=TP.FLOAT, dims=[3], float_data=[1.0, 2.0]), "holds 2 values in float_data"),
    (lambda TP: TP(name="w", data_type=TP.INT64, dims=[-1], int64_data=[1]), "negative dimension"),
])
def test_a_tensor_whose_dims_contradict_its_data_is_a_corrupt_model(tmp_path, make, phrase):
    from onnx import TensorProto

    path = tmp_path / "lies.onnx"
    onnx.save(_one_add(make(TensorProto)), path)
    proc = cli("check", "onnx", str(path), "--json", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    error = json.loads(proc.stdout)
    assert phrase in error["message"] and "corrupt" in error["message"] and error["field"] == "w"


def test_consistent_raw_and_typed_tensors_load(tmp_path):
    from onnx import TensorProto, helper, numpy_helper

    for name, tensor in (("raw", numpy_helper.from_array(np.ones(2, np.float32), "w")),
                         ("typed", helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0]))):
        onnx.save(_one_add(tensor), tmp_path / f"{name}.onnx")
        proc = cli("check", "onnx", str(tmp_path / f"{name}.onnx"), cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_several_models_one_row_each_and_one_report_each(files):
    proc = check("mlp17.onnx", "mlp22.onnx", "--target", "triton==23.12", "--json", cwd=files)
    assert proc.returncode == 1, proc.stderr
    out = out_of(proc)
    assert set(out) == {"detector", "ok", "findings", "models"} and out["ok"] is False
    assert [(m["file"], m["level"]) for m in out["models"]] == [("mlp17.onnx", "likely"), ("mlp22.onnx", "blocked")]
    assert out["models"][0]["findings"] == [] and out["models"][1]["worst"] == "error"
    assert {f["location"]["file"] for f in out["findings"]} == {"mlp22.onnx"}
    proc = check("mlp17.onnx", "mlp19.onnx", "--target", "triton==23.12", cwd=files)
    assert proc.returncode == 0 and "mlp17.onnx: likely" in proc.stdout and "mlp19.onnx: likely" in proc.stdout
    bad = check("mlp17.onnx", "missing.onnx", cwd=files)
    assert bad.returncode == 2 and "missing.onnx" in bad.stderr
