"""`faultlib new --from-trace` on a hostile trace: names that try to end a comment, a docstring or a
string never become code, YAML or Markdown; a failing `new` leaves nothing behind."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest
import yaml

from faultlib.errors import InputError
from faultlib.traces import codegen
from tests.conftest import cli, cli_in_process

# each one tries another way out of a literal, a comment or a docstring of a generated file
PAYLOADS = [
    'svc\nimport os; os.system("touch {marker}")\n#',
    'svc\r__import__("os").system("touch {marker}")\r#',
    'svc"""; __import__("os").system("touch {marker}"); """',
    "svc'''; __import__('os').system('touch {marker}'); '''",
    "svc')\n__import__('os').system('touch {marker}')\n('",
    'svc\u2028__import__("os").system("touch {marker}")',
    "svc\\\n__import__('os').system('touch {marker}')",
    "svc {{}} {0} {name} %s ` `` \x1b]0;pwned\x07 <script>",
    "svc\n- injected: yaml\n# {marker}",
    "svc ${HOME}${X:?boom} $$",
]


def _span(trace_id: str, span_id: str, parent: str, name: str, start_ms: int, ms: int, error: bool = False) -> dict:
    span = {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name, "kind": 2,
            "startTimeUnixNano": str(1_700_000_000_000_000_000 + start_ms * 1_000_000),
            "endTimeUnixNano": str(1_700_000_000_000_000_000 + (start_ms + ms) * 1_000_000),
            "attributes": [{"key": "peer.service", "value": {"stringValue": "downstream"}}]}
    if error:
        span["status"] = {"code": 2}
    return span


def hostile_trace(path, caller: str, callee: str, operation: str) -> None:
    """A two-service OTLP/JSON trace: ``caller`` calls ``callee``'s ``operation`` 20 times; 3 calls fail."""
    docs = []
    for i in range(20):
        trace_id, root, child = f"{i + 1:032x}", f"{2 * i + 1:016x}", f"{2 * i + 2:016x}"
        for service, span in ((caller, _span(trace_id, root, "", f"{caller}.handle", i * 100, 40)),
                              (callee, _span(trace_id, child, root, operation, i * 100 + 1, 30, error=i < 3))):
            docs.append({"resourceSpans": [{"resource": {"attributes": [
                {"key": "service.name", "value": {"stringValue": service}}]},
                "scopeSpans": [{"scope": {"name": "x"}, "spans": [span]}]}]})
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))


def _import(module_path, cwd) -> subprocess.CompletedProcess:
    """Import a generated module in a fresh interpreter (module-level code runs, main() does not)."""
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('generated', sys.argv[1]); "
            "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)")
    return subprocess.run([sys.executable, "-c", code, str(module_path)], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_hostile_names_stay_literals_in_every_generated_file(tmp_path, payload):
    marker = tmp_path / "PWNED"
    name = payload.format(marker=marker) if "{marker}" in payload else payload
    trace = tmp_path / f"incident{chr(10)}x.jsonl" if "\n" in payload else tmp_path / "incident.jsonl"
    hostile_trace(trace, caller=f"front {name}", callee=name, operation=f"op {name}")
    proc = cli_in_process("new", "hostile_case", "--from-trace", str(trace), "--out", "cases", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    case_dir = tmp_path / "cases" / "hostile_case"

    repro = case_dir / "repro.py"
    tree = ast.parse(repro.read_text())
    constants = {n.targets[0].id: ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and n.targets[0].id.isupper()
                 and isinstance(n.value, (ast.Constant, ast.Tuple, ast.Dict))}
    assert constants["SERVICE"] == name and constants["OPERATION"] == f"op {name}"
    assert constants["CALLER"] == (f"front {name}", f"front {name}.handle")
    assert constants["TRACE_FILE"] == trace.name
    assert name not in (ast.get_docstring(tree) or "")
    tests = ast.parse((case_dir / "test_case.py").read_text())
    edge = next(ast.literal_eval(n.value) for n in tests.body if isinstance(n, ast.Assign)
                and getattr(n.targets[0], "id", "") == "EDGE")
    assert edge == ((f"front {name}", f"front {name}.handle"), (name, f"op {name}"))

    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    assert "injected" not in data and f"op {name}" in data["observability"]["spans"]
    compose = yaml.safe_load((case_dir / "compose.yaml").read_text())
    assert "injected" not in compose
    for service in compose["services"].values():
        if service["command"][:2] == ["python", "-c"]:
            code = service["command"][2]
            assert "$" not in code.replace("$$", "")  # Compose interpolates a lone $ (compose-spec)
            [statement] = ast.parse(code.replace("$$", "$")).body
            assert isinstance(statement, ast.Raise)
    readme = (case_dir / "README.md").read_text()
    assert "\x1b" not in readme and "<script>" not in readme.replace("` ", "").split("`")[0]

    for module in (repro, case_dir / "test_case.py"):
        ran = _import(module, case_dir)
        assert ran.returncode == 0, ran.stderr
    assert not marker.exists(), "text from the trace ran as code"
    assert cli_in_process("validate", str(case_dir), cwd=tmp_path).returncode == 0


def test_a_name_too_long_for_a_case_exits_2_and_leaves_nothing(tmp_path):
    trace = tmp_path / "incident.jsonl"
    hostile_trace(trace, caller="frontend", callee="inventory", operation="x" * 5_000_000)
    proc = cli("new", "long_case", "--from-trace", str(trace), "--out", "cases", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "longer than a case can name" in proc.stderr and "incident.jsonl" in proc.stderr
    assert not (tmp_path / "cases").exists() or os.listdir(tmp_path / "cases") == []


def test_a_case_that_fails_its_check_leaves_nothing_behind(tmp_path):
    from faultlib.traces.scaffold import render, write

    trace = tmp_path / "incident.jsonl"
    hostile_trace(trace, caller="frontend", callee="inventory", operation="inventory.get")
    scaffold = render("checked_case", trace)

    def refuse(staged):
        assert (staged / "case.yaml").is_file() and staged.name == "checked_case"
        raise InputError("refused by the check")

    with pytest.raises(InputError, match="refused by the check"):
        write(scaffold, tmp_path / "cases", check=refuse)
    assert os.listdir(tmp_path / "cases") == []
    assert write(scaffold, tmp_path / "cases", check=lambda staged: None) == tmp_path / "cases" / "checked_case"
    assert os.listdir(tmp_path / "cases") == ["checked_case"]


def test_codegen_refuses_a_template_whose_value_is_not_a_constant_line():
    with pytest.raises(InputError, match="KEY = "):
        codegen.python_module("x = 1  # {SERVICE}\n", {"SERVICE": "a"}, name="t.py")
    with pytest.raises(InputError, match="KEY = "):
        codegen.python_module("SERVICE = {SERVICE}\nx = 1  # {SERVICE}\n", {"SERVICE": "a"}, name="t.py")


def test_codegen_proves_the_tree_and_the_literal(monkeypatch):
    source = codegen.python_module('"""doc"""\nSERVICE = {SERVICE}\nprint(SERVICE)\n',
                                   {"SERVICE": 'a"""\nimport os\n'}, name="t.py")
    tree = ast.parse(source)
    assert len(tree.body) == 3 and ast.literal_eval(tree.body[1].value) == 'a"""\nimport os\n'
    # were a value ever written without repr (a bug), the tree check refuses the module
    monkeypatch.setattr(codegen, "literal", lambda value: value)
    with pytest.raises(InputError, match="changed the generated module"):
        codegen.python_module("SERVICE = {SERVICE}\n", {"SERVICE": "1\nimport os"}, name="t.py")


def test_md_code_fences_outlast_any_backtick_run():
    span = codegen.md_code("a ``` b\nc\x1b")
    assert span.startswith("```` ") and span.endswith(" ````") and "\n" not in span and "\x1b" not in span


def test_a_trace_of_more_services_than_a_case_can_stand_up_exits_2_before_rendering(tmp_path):
    # 20,000 services took 100 s and 700 MB to render, then failed on a 9.5 MiB compose.yaml with a message about
    # a file that was never written; now refused from the graph, naming the trace and what to export instead
    from faultlib.traces.bounds import MAX_SERVICES

    resources = [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": f"svc{i}"}}]},
                  "scopeSpans": [{"spans": [_span("ab" * 16, f"{i + 1:016x}", f"{i:016x}" if i else "", f"op{i}",
                                                  i, 5)]}]} for i in range(MAX_SERVICES + 1)]
    (tmp_path / "mesh.json").write_text(json.dumps({"resourceSpans": resources}))
    proc = cli("new", "mesh_wide", "--from-trace", "mesh.json", "--out", "cases", cwd=tmp_path)
    assert proc.returncode == 2 and "mesh.json" in proc.stderr, proc.stderr
    assert f"{MAX_SERVICES + 1:,} services" in proc.stderr and "export the traces of the incident" in proc.stderr
    assert not (tmp_path / "cases" / "mesh_wide").exists()
