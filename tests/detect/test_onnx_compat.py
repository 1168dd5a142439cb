"""faultlib.detect.serving.onnx on real models: small graphs built with onnx.helper, a torch MLP trained on
breast_cancer and exported, cross-checked against the installed onnxruntime (and, when installed side by
side, onnxruntime 1.20.1: FAULTLIB_ORT_SIDE_BY_SIDE=DIR from `pip install --no-deps --target DIR
onnxruntime==1.20.1`)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from faultlib.errors import DetectorError, InjectionError, InputError
from faultlib.findings import Finding

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper as h  # noqa: E402

from faultlib.detect.serving.onnx import (  # noqa: E402
    KINDS, ORT_RELEASES, LoadedModel, check_model, compare_outputs, downgrade, load_model, load_sample, parse_target)
from faultlib.detect.serving.onnx.targets import installed_registry  # noqa: E402

SIDE_BY_SIDE = os.environ.get("FAULTLIB_ORT_SIDE_BY_SIDE")
needs_old_ort = pytest.mark.skipif(
    not (SIDE_BY_SIDE and (Path(SIDE_BY_SIDE) / "onnxruntime").is_dir()),
    reason="onnxruntime 1.20.1 is not installed side by side: `pip install --no-deps --target DIR "
           "onnxruntime==1.20.1` and set FAULTLIB_ORT_SIDE_BY_SIDE=DIR")


def graph_model(nodes, inputs, outputs, opset=13, *, domains=(), initializers=(), ir_version=None):
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset), *[h.make_opsetid(d, v) for d, v in domains]])
    if ir_version is not None:
        model.ir_version = ir_version
    return model


def unary(op, elem=T.FLOAT, opset=13, **attrs):
    return graph_model([h.make_node(op, ["x"], ["y"], name="n0", **attrs)], [h.make_tensor_value_info("x", elem, [2, 3])],
                       [h.make_tensor_value_info("y", elem, None)], opset)


def loaded(model, path="m.onnx"):
    return LoadedModel(Path(path), model, model.ByteSize())


def kinds(report):
    return [f.kind for f in report.findings]


def session_error(model) -> str | None:
    try:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001
        return str(exc)
    return None


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    """The kernel registry cache goes to a temp dir, never the user's cache."""
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


# --- the torch model of the case, exported (TorchScript exporter: fast, and valid at opset 22) --------------

@pytest.fixture(scope="module")
def mlp():
    torch = pytest.importorskip("torch")
    pytest.importorskip("sklearn")
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
    return model.eval(), x[:64]


def export(model, sample, opset):
    import torch

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.from_numpy(sample[:4]),), buffer, dynamo=False, opset_version=opset,
                          input_names=["features"], output_names=["logits"], dynamic_axes={"features": {0: "b"}})
    return onnx.load_model_from_string(buffer.getvalue())


@pytest.fixture(scope="module")
def exported(mlp, tmp_path_factory):
    model, sample = mlp
    out = tmp_path_factory.mktemp("exported")
    paths = {}
    for opset in (17, 19, 22):
        paths[opset] = out / f"mlp{opset}.onnx"
        onnx.save(export(model, sample, opset), paths[opset])
    return paths


# --- targets ---------------------------------------------------------------------------------------------------

def test_every_target_form_parses_with_its_source():
    installed = parse_target(None)
    assert installed.registry is not None and installed.runtime_version == ort.__version__
    assert installed.max_opset[""] == max(v for (d, _), vs in installed.registry.schemas.items() if d == ""
                                          for v, _ in vs)
    same = parse_target(f"onnxruntime=={ort.__version__}")
    assert same.registry is installed.registry
    assert installed.registry.verified and installed.to_json()["kernels"] == "installed registry"
    old = parse_target("onnxruntime==1.16.3")  # the shipped release table: that runtime is never imported
    assert (old.registry.version, old.registry.verified, old.max_opset, old.max_ir_version) == (
        "1.16.3", False, {"": 19, "ai.onnx.ml": 3}, 9)
    assert "compatibility.html" in old.source and "onnxruntime-1.16.3.json.gz" in old.source
    assert ("", "Relu") in old.registry.kernels and old.to_json()["kernels"] == "release table"
    matrix_only = parse_target("onnxruntime==1.14")
    assert matrix_only.registry is None and "no kernel table" in matrix_only.source
    triton = parse_target("triton==23.12")
    assert (triton.kind, triton.runtime_version, triton.max_opset[""]) == ("triton", "1.16.3", 19)
    assert "build.py" in triton.source
    assert parse_target("opset=19").max_opset == {"": 19}
    assert parse_target("triton==24.02").has_onnx_backend is False


@pytest.mark.parametrize("spec, phrase", [("onnxruntime==1.99", "no data for onnxruntime 1.99"),
                                          ("triton==19.01", "no data for Triton 19.01"),
                                          ("tensorrt==10", "is not a target"), ("opset=0", "out of range")])
def test_unknown_targets_are_refused_naming_what_is_known(spec, phrase):
    with pytest.raises(InputError, match=phrase) as err:
        parse_target(spec)
    assert err.value.field == "--target"


def test_the_ort_table_is_ordered_and_matches_the_installed_registry_where_they_meet():
    rows = sorted(ORT_RELEASES.items(), key=lambda kv: tuple(map(int, kv[0].split("."))))
    opsets = [r.opset for _, r in rows]
    assert opsets == sorted(opsets) and opsets[-1] == 21
    registry = installed_registry()
    row = ORT_RELEASES.get(".".join(registry.version.split(".")[:2]))
    if row is not None:  # the installed release is in the table: its own registry must agree
        assert registry.max_opset[""] == row.opset


# --- specification checks ----------------------------------------------------------------------------------------

def test_op_newer_than_the_imported_opset():
    report = check_model(loaded(unary("Gelu", opset=19)))
    assert kinds(report) == ["op_newer_than_opset"]
    finding = report.findings[0]
    assert finding.location == {"node": "n0", "op": "Gelu", "index": 0}
    assert finding.evidence["first_version"] == 20 and finding.evidence["opset"] == 19
    assert "Gelu" in (session_error(unary("Gelu", opset=19)) or "")  # onnxruntime refuses it too


def test_attribute_that_moved_to_an_input_at_an_opset_boundary():
    model = unary("ReduceMean", opset=18, axes=[1])
    report = check_model(loaded(model))
    assert kinds(report) == ["attribute_not_in_schema"]
    evidence = report.findings[0].evidence
    assert evidence["attribute"] == "axes" and evidence["schema_version"] == 18 and evidence["input_index"] == 1
    assert evidence["attribute_in_versions"] == [1, 11, 13]
    assert "it was an attribute up to ReduceMean-13" in report.findings[0].message
    assert "Unrecognized attribute: axes" in session_error(model)
    assert check_model(loaded(unary("ReduceMean", opset=13, axes=[1]))).findings == []


def test_input_that_is_an_attribute_at_this_opset():
    split = h.make_node("Split", ["x", "s"], ["a", "b"], name="split", axis=1)
    model = graph_model([split], [h.make_tensor_value_info("x", T.FLOAT, [2, 4])],
                        [h.make_tensor_value_info("a", T.FLOAT, None), h.make_tensor_value_info("b", T.FLOAT, None)],
                        opset=11, initializers=[h.make_tensor("s", T.INT64, [2], [2, 2])])
    report = check_model(loaded(model))
    assert kinds(report) == ["input_count_out_of_range"]
    finding = report.findings[0]
    assert finding.evidence["inputs"] == 2 and finding.evidence["max_inputs"] == 1
    assert "Split-13 takes 2 (input, split), where Split-11 has 'split' as an attribute" in finding.message


def test_required_attribute_unknown_op_domain_and_deprecated_op():
    assert kinds(check_model(loaded(unary("Cast")))) == ["missing_required_attribute"]
    assert kinds(check_model(loaded(unary("Gelux")))) == ["unknown_op"]
    ml = graph_model([h.make_node("Normalizer", ["x"], ["y"], domain="ai.onnx.ml", name="norm")],
                     [h.make_tensor_value_info("x", T.FLOAT, [2, 3])], [h.make_tensor_value_info("y", T.FLOAT, None)])
    assert kinds(check_model(loaded(ml))) == ["domain_not_imported"]
    upsample = graph_model([h.make_node("Upsample", ["x", "s"], ["y"], name="up")],
                           [h.make_tensor_value_info("x", T.FLOAT, [1, 1, 2, 2]),
                            h.make_tensor_value_info("s", T.FLOAT, [4])],
                           [h.make_tensor_value_info("y", T.FLOAT, None)], opset=10)
    assert "deprecated_op" in kinds(check_model(loaded(upsample)))


def test_types_the_schema_does_not_allow_yet():
    report = check_model(loaded(unary("Relu", T.INT8, opset=13)))
    assert kinds(report) == ["type_not_in_schema"]
    assert report.findings[0].evidence["allowed_from_version"] == 14
    assert check_model(loaded(unary("Relu", T.INT8, opset=14)), parse_target(None)).findings == []


def test_opset_newer_than_the_onnx_package_knows_is_a_warning():
    model = unary("Relu", opset=13)
    model.opset_import[0].version = 999
    report = check_model(loaded(model))
    assert kinds(report) == ["opset_unknown_to_onnx"]
    assert report.findings[0].location == {"key": "opset_import.ai.onnx"}


def test_subgraph_nodes_are_checked_with_their_path():
    then = h.make_graph([h.make_node("Gelu", ["x"], ["t"], name="inner")], "then", [],
                        [h.make_tensor_value_info("t", T.FLOAT, None)])
    other = h.make_graph([h.make_node("Identity", ["x"], ["e"], name="same")], "else", [],
                         [h.make_tensor_value_info("e", T.FLOAT, None)])
    model = graph_model([h.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)],
                        [h.make_tensor_value_info("c", T.BOOL, []), h.make_tensor_value_info("x", T.FLOAT, [2])],
                        [h.make_tensor_value_info("y", T.FLOAT, None)], opset=19)
    report = check_model(loaded(model))
    assert [(f.kind, f.location["node"]) for f in report.findings] == [
        ("op_newer_than_opset", "branch/then_branch/inner")]
    assert report.nodes_checked == 3


# --- target checks: the installed onnxruntime's kernel registry, confirmed by onnxruntime itself -----------------

@pytest.mark.parametrize("op, elem, opset, extra", [("Erf", T.DOUBLE, 13, ()), ("Gemm", T.INT64, 13, ("w",))])
def test_types_without_a_kernel_are_what_onnxruntime_refuses(op, elem, opset, extra):
    node = h.make_node(op, ["x", *extra], ["y"], name="n0")
    model = graph_model([node], [h.make_tensor_value_info(n, elem, [2, 2]) for n in ("x", *extra)],
                        [h.make_tensor_value_info("y", elem, None)], opset)
    report = check_model(loaded(model), parse_target(None))
    assert kinds(report) == ["type_unsupported_by_target"]
    assert report.findings[0].severity.value == "error"
    assert report.findings[0].evidence["types"] == {"T": f"tensor({T.DataType.Name(elem).lower()})"}
    assert "NOT_IMPLEMENTED" in session_error(model)


def test_ops_without_a_kernel_and_ops_run_as_functions():
    decoder = graph_model([h.make_node("ImageDecoder", ["x"], ["y"], name="dec")],
                          [h.make_tensor_value_info("x", T.UINT8, [10])], [h.make_tensor_value_info("y", T.UINT8, None)],
                          opset=20)
    report = check_model(loaded(decoder), parse_target(None))
    assert kinds(report) == ["op_unsupported_by_target"]
    assert "NOT_IMPLEMENTED" in session_error(decoder)
    mish = unary("Mish", opset=22)
    report = check_model(loaded(mish), parse_target(None))
    assert kinds(report) == ["op_expanded_as_function"] and report.ok  # info only
    assert session_error(mish) is None
    cos = unary("Cos", T.FLOAT16)
    assert kinds(check_model(loaded(cos), parse_target(None))) == ["float16_cast_to_float"]
    assert session_error(cos) is None


def test_custom_ops_need_the_runtime_registry():
    node = h.make_node("FusedThing", ["x"], ["y"], domain="com.example", name="custom")
    model = graph_model([node], [h.make_tensor_value_info("x", T.FLOAT, [2])], [h.make_tensor_value_info("y", T.FLOAT, None)],
                        domains=[("com.example", 1)])
    assert kinds(check_model(loaded(model), parse_target("opset=13"))) == ["custom_op_unchecked"]
    assert kinds(check_model(loaded(model), parse_target(None))) == ["op_unsupported_by_target"]


def test_ir_version_and_old_opsets_against_the_installed_runtime():
    model = unary("Relu")
    model.ir_version = 99
    report = check_model(loaded(model), parse_target(None))
    assert kinds(report) == ["ir_version_unsupported"] and session_error(model)
    old = unary("Relu", opset=6)  # below opset 7 onnxruntime "does not guarantee" support, yet loads and runs it
    report = check_model(loaded(old), parse_target(None))
    assert kinds(report) == [] and report.level == "verified" and session_error(old) is None


def test_torch_export_against_an_older_target(exported):
    model = load_model(exported[22])
    report = check_model(model, parse_target("triton==23.12"))
    assert sorted(kinds(report)) == ["ir_version_unsupported", "model_opset_unsupported", "op_unsupported_by_target"]
    gelu = next(f for f in report.findings if f.kind == "op_unsupported_by_target")
    assert gelu.location == {"node": "/2/Gelu", "op": "Gelu", "index": 2}
    assert report.fix["opset"] == 19 and report.fix["version_converter"]["ok"] is False
    assert "No Previous Version of Gelu" in report.fix["version_converter"]["error"]
    newer = check_model(model, parse_target("onnxruntime==1.20"))
    assert kinds(newer) == ["model_opset_unsupported"] and newer.fix["version_converter"]["ok"] is True
    assert check_model(model, parse_target(None)).findings == []  # the installed runtime implements opset 22
    assert check_model(load_model(exported[19]), parse_target("triton==23.12")).findings == []
    assert check_model(load_model(exported[19]), parse_target(None)).findings == []  # Constant nodes need no kernel
    assert check_model(load_model(exported[17]), parse_target("opset=17")).findings == []
    assert report.model["ops"] == {"Gelu": 1, "Gemm": 2, "LayerNormalization": 1}


def test_downgrade_works_where_an_adapter_exists_and_says_what_to_do_where_not(exported):
    model = load_model(exported[22]).model
    converted = downgrade(model, 21)
    assert {o.domain: o.version for o in converted.opset_import}[""] == 21
    assert check_model(loaded(converted), parse_target("onnxruntime==1.20")).findings == []
    with pytest.raises(DetectorError, match="No Previous Version of Gelu.*opset_version=19"):
        downgrade(model, 19)


# --- loading: not what it claims -----------------------------------------------------------------------------------

def test_files_that_are_not_onnx_models_are_refused(tmp_path, exported):
    data = exported[22].read_bytes()
    cases = {"text.onnx": b"ir_version: 8\n", "cut.onnx": data[: len(data) // 2], "empty.onnx": b"",
             "nograph.onnx": b"\x08\x07"}
    phrases = {"text.onnx": "does not parse", "cut.onnx": "does not parse", "empty.onnx": "is empty",
               "nograph.onnx": "lacks a graph and an opset import"}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(InputError, match=phrases[name]) as err:
            load_model(tmp_path / name)
        assert err.value.path == str(tmp_path / name)
    dangling = graph_model([h.make_node("Relu", ["nowhere"], ["y"], name="r")], [], [h.make_tensor_value_info("y", T.FLOAT, None)])
    onnx.save(dangling, tmp_path / "dangling.onnx")
    with pytest.raises(InputError, match="reads 'nowhere'"):
        load_model(tmp_path / "dangling.onnx")
    (tmp_path / "link.onnx").symlink_to(exported[22])
    with pytest.raises(InputError, match="symbolic link"):
        load_model(tmp_path / "link.onnx")


def _external_model(directory: Path, model) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, directory / "model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    return directory / "model.onnx"


def _relocate(path: Path, location: str) -> None:
    model = onnx.load(str(path), load_external_data=False)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = location
    onnx.save(model, path)


def test_external_data_stays_inside_the_model_directory(tmp_path, exported, mlp):
    model = load_model(exported[17]).model
    path = _external_model(tmp_path / "m" / "sub", model)
    found = load_model(path)
    assert found.external and {r.location for r in found.external} == {"weights.bin"}
    assert check_model(found, parse_target("triton==23.12")).findings == []
    full = load_model(path, load_external=True)
    assert compare_outputs(full, mlp[0], mlp[1]).ok
    (tmp_path / "m" / "weights.bin").write_bytes((path.parent / "weights.bin").read_bytes())
    _relocate(path, "../weights.bin")
    with pytest.raises(InputError, match="leaves its directory"):
        load_model(path)
    _relocate(path, str(tmp_path / "m" / "weights.bin"))  # absolute, elsewhere
    with pytest.raises(InputError, match="leaves its directory"):
        load_model(path)
    _relocate(path, "linked.bin")
    (path.parent / "linked.bin").symlink_to(path.parent / "weights.bin")
    with pytest.raises(InputError, match="symbolic link"):
        load_model(path)
    _relocate(path, "gone.bin")
    with pytest.raises(InputError, match="is missing"):
        load_model(path)
    _relocate(path, "short.bin")
    (path.parent / "short.bin").write_bytes(b"\0" * 10)
    with pytest.raises(InputError, match="truncated"):
        load_model(path)


# --- torch vs onnxruntime -----------------------------------------------------------------------------------------

def test_outputs_match_torch_and_drift_is_caught(exported, mlp):
    import torch

    model, sample = mlp
    comparison = compare_outputs(load_model(exported[19]), model, sample)
    assert comparison.ok and comparison.max_abs_error < 1e-5 and comparison.max_rel_error < 1e-3
    assert comparison.outputs[0].shape == comparison.outputs[0].torch_shape == [64, 2]
    assert json.dumps(comparison.to_json(), allow_nan=False)
    drifted = torch.nn.Sequential(*[m for m in model])  # same modules ...
    with torch.no_grad():
        original = drifted[1].eps
        drifted[1].eps = 0.5  # ... but LayerNorm's epsilon differs, as between two implementations
        result = compare_outputs(load_model(exported[19]), drifted, sample)
        drifted[1].eps = original
    assert [f.kind for f in result.findings] == ["output_mismatch"]
    assert result.max_abs_error > 1e-3 and result.findings[0].location == {"key": "logits"}
    cast = compare_outputs(load_model(exported[19]), model, sample.astype(np.float64))
    assert cast.input["cast_from"] == "float64" and cast.ok


def test_runtime_failures_are_findings_and_bad_samples_are_input_errors(tmp_path, mlp):
    model, sample = mlp
    bad = graph_model([h.make_node("Erf", ["features"], ["logits"], name="erf")],
                      [h.make_tensor_value_info("features", T.DOUBLE, [None, 30])],
                      [h.make_tensor_value_info("logits", T.DOUBLE, None)])
    result = compare_outputs(loaded(bad), model, sample.astype(np.float64))
    assert [f.kind for f in result.findings] == ["runtime_load_failed"] and result.max_abs_error is None
    two = graph_model([h.make_node("Add", ["a", "b"], ["y"])], [h.make_tensor_value_info("a", T.FLOAT, [2]),
                                                                h.make_tensor_value_info("b", T.FLOAT, [2])],
                      [h.make_tensor_value_info("y", T.FLOAT, None)])
    with pytest.raises(InputError, match="2 graph inputs"):
        compare_outputs(loaded(two), model, sample)
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="object array: it needs pickle, which is refused"):
        load_sample(tmp_path / "objects.npy")
    # a header that declares far more than the file holds: refused before numpy allocates it (36 TiB here)
    np.save(tmp_path / "lying.npy", np.zeros((3, 4), np.float32))
    (tmp_path / "lying.npy").write_bytes((tmp_path / "lying.npy").read_bytes().replace(
        b"'shape': (3, 4), ", b"'shape': (99999999, 99999), "))
    with pytest.raises(InputError, match=r"is corrupt: its header declares shape \(99999999, 99999\)"):
        load_sample(tmp_path / "lying.npy")
    (tmp_path / "sample.csv").write_text("1,2\n")
    with pytest.raises(InputError, match="not a .npy"):
        load_sample(tmp_path / "sample.csv")
    np.save(tmp_path / "words.npy", np.array(["a", "b"]))
    with pytest.raises(InputError, match="not numbers"):
        load_sample(tmp_path / "words.npy")


def test_kinds_are_documented_snake_case():
    assert all(Finding("onnx", "info", "m", kind=k).kind == k for k in KINDS)
    assert all(isinstance(v, str) and v for v in KINDS.values())


# --- the export_opset shim ------------------------------------------------------------------------------------------

class _Exporter:
    opset = 17


class _Target:
    def __init__(self, model):
        self.model, self.step, self.attempt, self.recorded = model, None, 1, []

    def record_fault(self, injector, **attributes):
        self.recorded.append((injector, attributes))


def test_export_opset_shim_applies_and_reverts():
    from faultlib.inject import build

    shim = build("export_opset", {"opset": 22})
    exporter, target = _Exporter(), _Target(None)
    target.model = exporter
    shim.apply(target)
    assert exporter.opset == 22 and target.recorded == [("export_opset", {"configured_opset": 17, "opset": 22,
                                                                          "attribute": "opset"})]
    shim.revert()
    assert exporter.opset == 17
    with pytest.raises(InjectionError, match="already uses opset 17"):
        build("export_opset", {"opset": 17}).apply(_Target(_Exporter()))
    with pytest.raises(InjectionError, match="an int opset in 'opset'"):
        build("export_opset", {"opset": 22}).apply(_Target(object()))
    with pytest.raises(InjectionError, match="opset"):
        build("export_opset", {"opset": 22, "version": 1})


# --- an older onnxruntime installed side by side: the table and the findings against the real release -------------

OLD_ORT = '''
import json, sys
import numpy as np
import onnxruntime as ort
from onnxruntime.capi import _pybind_state as C
out = {"version": ort.__version__,
       "opset": max(s.since_version for s in C.get_all_operator_schema() if s.domain == ""), "loads": {}}
for path in sys.argv[1:]:
    try:
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        out["loads"][path] = s.run(None, {"features": np.load(path + ".npy")})[0].tolist()
    except Exception as exc:
        out["loads"][path] = str(exc)[:300]
print(json.dumps(out))
'''


@needs_old_ort
def test_onnxruntime_1_20_agrees_with_the_table_and_the_findings(tmp_path, exported, mlp):
    model = load_model(exported[22])
    target = parse_target("onnxruntime==1.20")
    assert kinds(check_model(model, target)) == ["model_opset_unsupported"]
    fixed = tmp_path / "fixed21.onnx"
    onnx.save(downgrade(model.model, 21), fixed)
    assert check_model(load_model(fixed), target).findings == []
    for path in (exported[22], fixed):
        np.save(str(path) + ".npy", mlp[1])
    env = {**os.environ, "PYTHONPATH": SIDE_BY_SIDE}
    proc = subprocess.run([sys.executable, "-c", OLD_ORT, str(exported[22]), str(fixed)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["version"].startswith("1.20.") and out["opset"] == ORT_RELEASES["1.20"].opset
    assert isinstance(out["loads"][str(exported[22])], str)  # refused, as the finding says
    got = np.array(out["loads"][str(fixed)], dtype=np.float32)
    want = mlp[0](__import__("torch").from_numpy(mlp[1])).detach().numpy()
    assert np.abs(got - want).max() < 1e-4


def test_loop_carrying_values_of_different_types_is_clean():
    body = h.make_graph(
        [h.make_node("Identity", ["cond_in"], ["cond_out"]), h.make_node("Add", ["a_in", "one"], ["a_out"]),
         h.make_node("Identity", ["b_in"], ["b_out"])], "body",
        [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("cond_in", T.BOOL, []),
         h.make_tensor_value_info("a_in", T.FLOAT, [2]), h.make_tensor_value_info("b_in", T.INT64, [2])],
        [h.make_tensor_value_info("cond_out", T.BOOL, []), h.make_tensor_value_info("a_out", T.FLOAT, [2]),
         h.make_tensor_value_info("b_out", T.INT64, [2])])
    loop = h.make_node("Loop", ["n", "c", "a", "b"], ["a_end", "b_end"], name="loop", body=body)
    model = graph_model([loop], [h.make_tensor_value_info("n", T.INT64, []), h.make_tensor_value_info("c", T.BOOL, []),
                                 h.make_tensor_value_info("a", T.FLOAT, [2]), h.make_tensor_value_info("b", T.INT64, [2])],
                        [h.make_tensor_value_info("a_end", T.FLOAT, [2]), h.make_tensor_value_info("b_end", T.INT64, [2])],
                        opset=19, initializers=[h.make_tensor("one", T.FLOAT, [], [1.0])])
    report = check_model(loaded(model), parse_target(None))
    assert report.findings == [] and report.nodes_checked == 4
    assert session_error(model) is None


@pytest.mark.parametrize("op, gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
def test_batch_major_recurrent_layout_is_refused_as_onnxruntime_refuses_it(op, gates):
    weights = [h.make_tensor("W", T.FLOAT, [1, gates * 2, 3], [0.1] * gates * 6),
               h.make_tensor("R", T.FLOAT, [1, gates * 2, 2], [0.1] * gates * 4)]
    batch_major = graph_model([h.make_node(op, ["x", "W", "R"], ["y"], name="rnn", hidden_size=2, layout=1)],
                              [h.make_tensor_value_info("x", T.FLOAT, [4, 5, 3])],
                              [h.make_tensor_value_info("y", T.FLOAT, None)], opset=14, initializers=weights,
                              ir_version=8)
    report = check_model(loaded(batch_major), parse_target(None))
    assert kinds(report) == ["attribute_value_unsupported"] and report.level == "blocked"
    assert "layout" in (session_error(batch_major) or "")
    for attr in batch_major.graph.node[0].attribute:
        if attr.name == "layout":
            attr.i = 0
    report = check_model(loaded(batch_major), parse_target("onnxruntime==1.16.3"))
    assert kinds(report) == [] and report.level == "likely" and session_error(batch_major) is None


def test_per_channel_zero_points_the_integer_kernels_refuse():
    per_row = graph_model([h.make_node("MatMulInteger", ["a", "b", "az"], ["y"], name="mm")],
                          [h.make_tensor_value_info("a", T.UINT8, [2, 3])], [h.make_tensor_value_info("y", T.INT32, None)],
                          opset=10, initializers=[h.make_tensor("b", T.UINT8, [3, 4], [1] * 12),
                                                  h.make_tensor("az", T.UINT8, [2], [1, 2])])
    assert kinds(check_model(loaded(per_row), parse_target(None))) == ["attribute_value_unsupported"]
    session = ort.InferenceSession(per_row.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception, match="zero_point|ScalarOr1Element"):
        session.run(None, {"a": np.ones((2, 3), np.uint8)})
    per_row.graph.initializer[1].CopyFrom(h.make_tensor("az", T.UINT8, [], [1]))
    assert kinds(check_model(loaded(per_row), parse_target(None))) == []
