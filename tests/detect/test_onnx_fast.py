"""The onnx-free path of `check onnx` (`check_file`: google.protobuf + the cached descriptor and spec) against
the path that imports onnx (`load_model` + `check_model` with shape inference): the same report, on the
oracle's seeded sample and on hostile files; and a warm `faultlib check onnx` that imports neither onnx nor
onnxruntime."""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper as h  # noqa: E402

from faultlib.detect.serving.onnx import check_model, load_model, oracle, parse_target  # noqa: E402
from faultlib.detect.serving.onnx import specdata  # noqa: E402
from faultlib.detect.serving.onnx.check import check_file  # noqa: E402
from faultlib.errors import InputError  # noqa: E402

SAMPLE = 400


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def outcome(run):
    """The whole report as JSON, or the refusal's message."""
    try:
        loaded, report = run()
    except InputError as exc:
        return {"error": str(exc)}, None
    return {"findings": [f.to_json() for f in report.findings], **report.fields()}, loaded.onnx_free


def both(path: Path, target):
    """``(fast report, onnx report, whether the fast path stayed onnx-free)``."""
    fast, free = outcome(lambda: check_file(path, target))

    def with_onnx():
        loaded = load_model(path)
        return loaded, check_model(loaded, target)

    slow, _ = outcome(with_onnx)
    return fast, slow, free


def save(model, path: Path) -> Path:
    path.write_bytes(model.SerializeToString())
    return path


def test_the_fast_path_gives_the_same_reports_on_the_oracle_sample(tmp_path):
    cases = [c for c in oracle.generate() if c.excluded is None]
    sample = random.Random(18).sample(cases, SAMPLE)
    targets = [parse_target(None), parse_target("onnxruntime==1.16.3")]
    differ, free, typed = [], 0, 0
    for i, case in enumerate(sample):
        # as generated (outputs without types: onnx infers them), and with the inferred types written into
        # the file, as exporters write them (the onnx-free path then checks it on its own)
        try:
            inferred = onnx.shape_inference.infer_shapes(case.model, strict_mode=True)
        except Exception:  # noqa: BLE001 - inference refuses some generated inputs
            inferred = None
        variants = [case.model] + ([inferred] if inferred is not None else [])
        typed += inferred is not None
        for j, model in enumerate(variants):
            path = save(model, tmp_path / f"m{i}-{j}.onnx")
            for target in targets:
                fast, slow, went_free = both(path, target)
                free += bool(went_free)
                if fast != slow:
                    differ.append((case.key, j, target.spec))
    assert differ == []
    assert typed >= 0.8 * SAMPLE and free == 2 * (SAMPLE + typed), f"{typed}; {free}"  # never the onnx package


def graph_model(nodes, inputs, outputs, opset=13, initializers=(), value_info=()):
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def chain(*, declared: bool):
    """x -> Relu -> r -> Cast(int32) -> c -> Abs -> y: with ``declared`` the two intermediates have value_info."""
    nodes = [h.make_node("Relu", ["x"], ["r"]), h.make_node("Cast", ["r"], ["c"], to=T.INT32),
             h.make_node("Abs", ["c"], ["y"])]
    info = [h.make_tensor_value_info("r", T.FLOAT, [2]), h.make_tensor_value_info("c", T.INT32, [2])]
    return graph_model(nodes, [h.make_tensor_value_info("x", T.FLOAT, [2])],
                       [h.make_tensor_value_info("y", T.INT32, [2])], value_info=info if declared else ())


def nested(depth: int):
    """``depth`` If nodes, each inside the then-branch of the one above (built in place: onnx.helper copies
    through protobuf's parser, which refuses the deep ones)."""
    out = h.make_tensor_value_info("y", T.FLOAT, [1])
    leaf = h.make_graph([h.make_node("Identity", ["x"], ["y"])], "leaf", [], [out])
    model = h.make_model(h.make_graph([], "main", [h.make_tensor_value_info("cond", T.BOOL, []),
                                                   h.make_tensor_value_info("x", T.FLOAT, [1])], [out]),
                         opset_imports=[h.make_opsetid("", 13)])
    graph = model.graph
    for level in range(depth):
        node = graph.node.add(op_type="If", name=f"if{level}", input=["cond"], output=["y"])
        node.attribute.add(name="else_branch", type=onnx.AttributeProto.GRAPH).g.CopyFrom(leaf)
        graph = node.attribute.add(name="then_branch", type=onnx.AttributeProto.GRAPH).g
        graph.name = f"g{level}"
        graph.output.add().CopyFrom(out)
    graph.node.add().CopyFrom(leaf.node[0])
    return model


def test_inference_the_converter_and_function_bodies_need_no_onnx_package(tmp_path, monkeypatch):
    target = parse_target(None)
    for declared in (True, False):  # undeclared intermediates: typed by the C++ inference, as onnx does
        fast, slow, free = both(save(chain(declared=declared), tmp_path / f"chain{declared}.onnx"), target)
        assert fast == slow and free is True and [n["level"] for n in fast["nodes"]] == ["verified"] * 3
    old = parse_target("onnxruntime==1.16.3")  # opset 19 there: a model at 22 gets the converter's advice
    x, y = h.make_tensor_value_info("x", T.FLOAT, [2]), h.make_tensor_value_info("y", T.FLOAT, [2])
    new = graph_model([h.make_node("Relu", ["x"], ["y"])], [x], [y], opset=22)
    fast, slow, free = both(save(new, tmp_path / "new.onnx"), old)
    assert fast == slow and free is True and fast["fix"]["version_converter"]["ok"] is True
    cannot = graph_model([h.make_node("Gelu", ["x"], ["y"])], [x], [y], opset=22)
    fast, slow, free = both(save(cannot, tmp_path / "gelu.onnx"), old)
    assert fast == slow and fast["fix"]["version_converter"]["ok"] is False and free is True
    like = h.make_tensor_value_info("like", T.INT32, [2])
    body = save(graph_model([h.make_node("CastLike", ["x", "like"], ["y"])], [x, like],
                            [h.make_tensor_value_info("y", T.INT32, [2])], opset=25), tmp_path / "castlike.onnx")
    fast, slow, free = both(body, target)  # no kernel at 25: its function body runs, node by node
    assert fast == slow and free is True and "op_expanded_as_function" in [f["kind"] for f in fast["findings"]]

    calls = []

    def not_by_itself():  # as where the extension cannot load alone; once onnx is imported, it is there
        calls.append(1)
        if len(calls) == 1:
            raise specdata.NeedsOnnx("not loadable by itself here")
        return specdata.onnx_extension()

    for module in ("check", "kernels"):
        monkeypatch.setattr(f"faultlib.detect.serving.onnx.{module}.onnx_extension", not_by_itself)
    fast, slow, free = both(body, target)
    assert free is False and fast == slow  # checked again the onnx package's way, the same report


def test_hostile_files_are_refused_the_same_way(tmp_path):
    target = parse_target(None)
    x, y = h.make_tensor_value_info("x", T.FLOAT, [2]), h.make_tensor_value_info("y", T.FLOAT, [2])
    whole = chain(declared=True).SerializeToString()
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(whole[:len(whole) // 2])
    huge = T(name="w", data_type=T.FLOAT, dims=[2**31, 2**31], raw_data=b"\0" * 16)
    too_big = save(graph_model([h.make_node("Add", ["x", "w"], ["y"])], [x], [y], initializers=[huge]),
                   tmp_path / "dims.onnx")
    outside = T(name="w", data_type=T.FLOAT, dims=[2])
    outside.data_location = T.EXTERNAL
    outside.external_data.add(key="location", value="../weights.bin")
    (tmp_path / "weights.bin").write_bytes(b"\0" * 8)
    (tmp_path / "sub").mkdir()
    escaping = save(graph_model([h.make_node("Add", ["x", "w"], ["y"])], [x], [y], initializers=[outside]),
                    tmp_path / "sub" / "outside.onnx")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(bytes(range(256)) * 4)
    for path, says in [(truncated, "not an ONNX model"), (too_big, "contradict"), (escaping, "refused"),
                       (garbage, "not an ONNX model")]:
        fast, slow, free = both(path, target)
        assert fast == slow and says in fast["error"], f"{path.name}; {fast}"
    link = tmp_path / "link.onnx"
    link.symlink_to(tmp_path / "sub" / "outside.onnx")
    fast, slow, _ = both(link, target)
    assert fast == slow and "symbolic link" in fast["error"]
    for depth in (3, 40):  # 3 messages deep per If: protobuf's recursion limit (100) refuses 40 on both paths
        path = save(nested(depth), tmp_path / f"nested{depth}.onnx")
        fast, slow, free = both(path, target)
        assert fast == slow, depth
        assert ("error" in fast) == (depth > 33), fast


def test_a_corrupt_spec_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(tmp_path / "own"))
    specdata.spec_data.cache_clear()
    try:
        fresh = specdata.spec_schemas()
        path = tmp_path / "own" / "onnx" / f"onnx-{specdata.onnx_version()}.json"
        assert path.is_file()
        whole = json.loads(path.read_text())
        for broken in ('{"format": 1, "onnx": "' + specdata.onnx_version() + '", "schemas": [[1]]}',
                       json.dumps({**whole, "descriptor": "bm90IGEgZGVzY3JpcHRvcg=="}), "{"):
            path.write_text(broken)
            specdata.spec_data.cache_clear()
            assert specdata.spec_schemas() == fresh  # rebuilt from onnx, and written again whole
            assert json.loads(path.read_text()) == whole
    finally:
        specdata.spec_data.cache_clear()


def test_the_cached_schemas_are_onnx_defs_field_for_field():
    import onnx.defs

    real = onnx.defs.get_all_schemas_with_history()
    cached = specdata.spec_schemas()
    assert len(cached) == len(real) > 500
    for schema, lite in zip(real, cached):
        assert specdata.SpecSchema.from_json(json.loads(json.dumps(lite.to_json()))) == lite
        assert (lite.domain, lite.name, lite.since_version) == (schema.domain, schema.name, schema.since_version)
        assert [(c.type_param_str, tuple(c.allowed_type_strs)) for c in schema.type_constraints] == \
            [(c.type_param_str, c.allowed_type_strs) for c in lite.type_constraints]
        assert {n: a.required for n, a in schema.attributes.items()} == \
            {n: a.required for n, a in lite.attributes.items()}
        assert [p.type_str for p in schema.inputs] == [p.type_str for p in lite.inputs]
        assert (schema.min_input, schema.max_input, schema.deprecated, schema.has_function) == \
            (lite.min_input, lite.max_input, lite.deprecated, lite.has_function)


def test_a_warm_check_imports_neither_onnx_nor_onnxruntime(tmp_path):
    declared = save(chain(declared=True), tmp_path / "declared.onnx")
    inferred = save(chain(declared=False), tmp_path / "inferred.onnx")
    env = {**os.environ, "FAULTLIB_CACHE_DIR": str(tmp_path / "cache")}
    script = ("import sys; from faultlib.cli.app import main\n"
              "try:\n    main(['check', 'onnx', '--json', *sys.argv[1:]])\nexcept SystemExit as e: code = e.code\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('onnx', 'onnxruntime', 'ml_dtypes')), "
              "code, file=sys.stderr)")

    def run(*paths):
        done = subprocess.run([sys.executable, "-c", script, *map(str, paths)], env=env, capture_output=True,
                              text=True, timeout=120)
        return json.loads(done.stdout), done.stderr.splitlines()[-1]

    cold, cold_modules = run(declared)
    assert "'onnx'," in cold_modules  # the first run reads the spec from onnx and caches it
    warm, warm_modules = run(declared, inferred)
    # shape inference runs in onnx's C++ extension, loaded alone: not the package, not ml_dtypes, not onnxruntime
    assert warm_modules.startswith("['onnx.onnx_cpp2py_export', ") and warm_modules.endswith("] 0"), warm_modules
    assert all(m.startswith("onnx.onnx_cpp2py_export") for m in ast.literal_eval(warm_modules[:-2]))
    assert [m["level"] for m in warm["models"]] == ["verified", "verified"]
    same = ("level", "levels", "nodes", "findings", "model", "target")  # as the cold run's
    assert {k: warm["models"][0][k] for k in same} == {k: cold[k] for k in same}
