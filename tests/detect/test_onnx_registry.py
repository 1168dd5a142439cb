"""The kernel registry cache (one file per onnxruntime version in $FAULTLIB_CACHE_DIR) and onnxruntime's own
kernel version rule, on the installed onnxruntime."""

from __future__ import annotations

import json
import threading

import pytest

ort = pytest.importorskip("onnxruntime")

from faultlib.detect.serving.onnx import registry  # noqa: E402
from faultlib.detect.serving.onnx.registry import OPEN_END, Kernel  # noqa: E402


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(tmp_path))
    registry.installed_registry.cache_clear()
    yield tmp_path / "onnx"
    registry.installed_registry.cache_clear()


def test_the_registry_is_read_once_and_then_served_from_the_cache(cache, monkeypatch):
    first = registry.installed_registry()
    files = list(cache.glob("onnxruntime-*.json"))
    assert len(files) == 1 and ort.__version__ in files[0].name and first.verified
    assert first.max_ir_version is not None and first.max_ir_version >= 10
    registry.installed_registry.cache_clear()
    monkeypatch.setattr(registry, "_probe_max_ir", lambda: pytest.fail("the cache was not used"))
    import faultlib.detect.serving.onnx.probe as probe

    monkeypatch.setattr(probe, "dump_registry", lambda *a: pytest.fail("the cache was not used"))
    second = registry.installed_registry()
    assert second.kernels == first.kernels and second.max_opset == first.max_opset


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": 0}), "", json.dumps([1, 2])])
def test_a_corrupt_or_foreign_cache_file_is_rebuilt(cache, content):
    registry.installed_registry()
    path = next(cache.glob("onnxruntime-*.json"))
    path.write_text(content)
    registry.installed_registry.cache_clear()
    rebuilt = registry.installed_registry()
    assert ("", "Relu") in rebuilt.kernels
    assert json.loads(path.read_text())["format"] == registry.CACHE_FORMAT


def test_a_cache_file_that_is_a_link_is_not_read(cache):
    version, providers = "1.0.0", ("CPUExecutionProvider",)
    real = cache.parent / "elsewhere.json"
    real.write_text(json.dumps({"format": registry.CACHE_FORMAT, "onnxruntime": version, "providers": list(providers)}))
    assert registry._read_cache(real, version, providers) is not None
    cache.mkdir()
    (cache / "linked.json").symlink_to(real)
    assert registry._read_cache(cache / "linked.json", version, providers) is None  # as read_json: rebuilt instead


def test_concurrent_writers_leave_one_whole_file(cache):
    data = {"format": registry.CACHE_FORMAT, "payload": list(range(20000))}
    target = cache / "race.json"
    threads = [threading.Thread(target=registry.write_atomic, args=(target, data)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert json.loads(target.read_text()) == data
    assert [p.name for p in cache.iterdir()] == ["race.json"]  # no temporary file left behind


def test_a_read_only_cache_directory_still_gives_the_registry(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(blocked))
    registry.installed_registry.cache_clear()
    try:
        assert registry.installed_registry() is not None
    finally:
        registry.installed_registry.cache_clear()


def test_a_kernel_without_an_end_version_serves_only_its_start_version():
    # onnxruntime/core/framework/kernel_registry.cc, VerifyKernelDef
    open_ended = Kernel("", "Op", 13, OPEN_END, {}, "CPUExecutionProvider")
    ranged = Kernel("", "Op", 6, 12, {}, "CPUExecutionProvider")
    assert open_ended.serves(13) and not open_ended.serves(14) and not open_ended.serves(12)
    assert ranged.serves(6) and ranged.serves(9) and ranged.serves(12) and not ranged.serves(13)


def test_onnxruntime_refuses_a_later_opset_an_open_ended_kernel_does_not_name():
    from onnx import TensorProto as T
    from onnx import helper as h

    from faultlib.detect.serving.onnx import LoadedModel, check_model, parse_target
    from faultlib.detect.serving.onnx.probe import probe

    target = parse_target(None)
    kernels = target.registry.kernels[("", "OptionalGetElement")]
    newest = max(v for v, _ in target.registry.schemas[("", "OptionalGetElement")])
    if any(k.serves(newest) for k in kernels):
        pytest.skip("this onnxruntime has a kernel for the newest OptionalGetElement")
    graph = h.make_graph([h.make_node("OptionalGetElement", ["x"], ["y"], name="get")], "g",
                         [h.make_value_info("x", h.make_optional_type_proto(h.make_tensor_type_proto(T.FLOAT, [2])))],
                         [h.make_value_info("y", h.TypeProto())])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", newest)])
    from pathlib import Path

    report = check_model(LoadedModel(Path("m.onnx"), model, model.ByteSize()), target)
    assert [f.kind for f in report.findings] == ["op_unsupported_by_target"]
    assert "Could not find an implementation" in probe(model.SerializeToString())["error"]


def test_no_module_beside_the_probe_script_shadows_the_standard_library():
    # probe.py runs as a script (its directory first on sys.path) under another onnxruntime's interpreter
    import sys
    from pathlib import Path

    from faultlib.detect.serving.onnx import probe

    names = {p.stem for p in Path(probe.__file__).parent.glob("*.py")}
    assert not names & set(sys.stdlib_module_names)
