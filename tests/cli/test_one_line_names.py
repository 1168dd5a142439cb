"""A name is one line on the terminal: a newline in a trace's ``service.name`` forged items of `faultlib new`'s
"still to fill in" list, and a file named ``nl<newline>fake: ok.py`` put a forged location on a second line of a
`check` table row; an ESC in a file name (escaped as ``\\x1b``, 4 columns) pushed its row's borders out of line
because rich measured the name before it was escaped."""

from __future__ import annotations

import json

from tests.conftest import cli

ASYNC_SLEEP = "import time\n\n\nasync def handler():\n    time.sleep(1)\n"


def _trace(path, callee: str) -> None:
    """OTLP/JSON lines: ``gateway`` calls ``callee`` ten times, two calls fail."""
    lines = []
    for i in range(10):
        for service, span_id, parent, name, error in (("gateway", f"{2 * i + 1:016x}", "", "GET /predict", False),
                                                      (callee, f"{2 * i + 2:016x}", f"{2 * i + 1:016x}", "lookup",
                                                       i < 2)):
            start = 1_800_000_000_000_000_000 + i * 10**8
            span = {"traceId": f"{i + 7:032x}", "spanId": span_id, "parentSpanId": parent, "name": name, "kind": 2,
                    "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 25 * 10**6)}
            if error:
                span["status"] = {"code": 2}
            lines.append(json.dumps({"resourceSpans": [{
                "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
                "scopeSpans": [{"scope": {"name": "t"}, "spans": [span]}]}]}))
    path.write_text("\n".join(lines) + "\n")


def test_new_prints_trace_names_on_one_line(tmp_path):
    _trace(tmp_path / "incident.jsonl", "store\n  - FORGED: nothing left to fill in")
    proc = cli("new", "store_case", "--from-trace", "incident.jsonl", "--out", "cases", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not [line for line in proc.stdout.splitlines() if "FORGED" in line and "store\\n" not in line], proc.stdout
    assert "store\\n  - FORGED" in proc.stdout, proc.stdout


def test_a_check_table_row_holds_a_hostile_file_name_in_line(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    for name in ("nl\nfake: ok.py", "x\x1b[2Jclear.py", "plain.py"):
        (app / name).write_text(ASYNC_SLEEP)
    proc = cli("check", "blocking", "app", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if "│" in line]
    assert len({tuple(i for i, c in enumerate(row) if c == "│") for row in rows}) == 1, proc.stdout
    assert not [line for line in proc.stdout.splitlines() if line.lstrip(" │").startswith("fake: ok.py")], proc.stdout
    assert "nl\\nfake: ok.py:5" in proc.stdout and "x\\x1b[2Jclear.py:5" in proc.stdout, proc.stdout


def test_a_case_title_with_a_newline_and_an_escape_keeps_the_list_in_line(tmp_path):
    from tests.conftest import tiny_case_data, write_case

    data = tiny_case_data("odd_title")
    data["title"] = "first line\n forged_case  9.9.9  infra.fake  critical  -  and \x1b[2J a clear"
    write_case(tmp_path / "cases", data)
    write_case(tmp_path / "cases", tiny_case_data("plain_title"))
    proc = cli("list", "cases", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if "│" in line]
    assert len(rows) == 2 and len({tuple(i for i, c in enumerate(r) if c == "│") for r in rows}) == 1, proc.stdout
    assert "first line\\n forged_case" in proc.stdout and "\\x1b[2J" in proc.stdout, proc.stdout


def test_a_problem_is_one_line_whatever_the_case_id_holds(tmp_path):
    """`faultlib dashboards --check` named a colliding case by its id as written: an id holding a newline
    (``lab<ESC>[31mX<newline>forged: ok``) started a forged line of the problem list. Every problem (an
    InputError's ``file:line: field: message``) is one line; the id is shown with ``\\n``."""
    import shutil
    from pathlib import Path

    from faultlib.errors import CaseError

    problem = CaseError("id 'a\nforged: ok' is taken", path="cases/x\ty/case.yaml", line=1, field="id\nz")
    assert "\n" not in problem.render() and "\t" not in problem.render()
    assert "a\\nforged: ok" in problem.render() and "x\\ty" in problem.render()

    source = Path(__file__).resolve().parents[2] / "cases" / "label_mapping_drift"
    catalog = tmp_path / "cases"
    for name in ("label_mapping_drift", "copy_of_labels"):
        shutil.copytree(source, catalog / name)
    case_yaml = catalog / "copy_of_labels" / "case.yaml"
    case_yaml.write_text(case_yaml.read_text().replace("id: label_mapping_drift", 'id: "lab\\e[31mX\\nforged: ok"', 1))
    got = cli("dashboards", str(catalog), "--check", "--out", str(tmp_path / "boards"), cwd=tmp_path)
    assert got.returncode == 2, got.stderr
    assert "lab\\x1b[31mX\\nforged: ok" in got.stderr, got.stderr
    assert not any(line.startswith("forged") for line in got.stderr.splitlines()), got.stderr
