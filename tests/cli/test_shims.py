"""`faultlib shims` lists every registered injector with parameters, types, defaults and docs."""

from __future__ import annotations

from faultlib.inject.registry import available, injector_class
from tests.conftest import cli, run_json


def test_shims_json_lists_every_registered_injector_with_its_schema(tmp_path):
    proc = cli("shims", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    shims = {s["name"]: s for s in run_json(proc)["shims"]}
    assert set(shims) == set(available())
    for name, shim in shims.items():
        schema = injector_class(name).params_schema
        assert [p["name"] for p in shim["params"]] == list(schema["properties"])
        assert {p["name"] for p in shim["params"] if p["required"]} == set(schema.get("required", []))
        assert shim["summary"] and all(p["description"] for p in shim["params"]), name
    latency = {p["name"]: p for p in shims["tcp_latency"]["params"]}
    assert latency["latency_ms"]["type"] == "number" and latency["latency_ms"]["minimum"] == 0


def test_shims_table_and_one_shim_with_its_docstring(tmp_path):
    table = cli("shims", cwd=tmp_path)
    assert table.returncode == 0 and "process_kill" in table.stdout and "at_step" in table.stdout
    one = cli("shims", "process_kill", cwd=tmp_path)
    assert one.returncode == 0 and "Params:" in one.stdout and "tcp_latency" not in one.stdout
    unknown = cli("shims", "no_such_shim", cwd=tmp_path)
    assert unknown.returncode == 2 and "registered shims" in unknown.stderr
