"""The "write your own case" page is runnable: its blocks make a case that validates and passes."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO, cli, run_json

PAGE = REPO / "docs" / "writing-a-case.md"
FILES = {"## case.yaml": "case.yaml", "## repro.py": "repro.py", "## test_case.py": "test_case.py",
         "## compose.yaml": "compose.yaml"}


def _blocks() -> dict[str, str]:
    text = PAGE.read_text()
    out = {}
    for heading, name in FILES.items():
        section = text.split(heading, 1)[1]
        out[name] = re.search(r"```(?:yaml|python)\n(.*?)```", section, re.S).group(1)
    return out


def test_the_page_names_every_file_once():
    assert set(_blocks()) == set(FILES.values())


def test_the_case_from_the_page_validates_and_passes(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    case_dir = tmp_path / "cases" / "my_first_case"
    case_dir.mkdir(parents=True)
    for name, body in _blocks().items():
        (case_dir / name).write_text(body)
    validated = cli("validate", str(case_dir), cwd=tmp_path)
    assert validated.returncode == 0, validated.stderr
    ran = cli("run", str(case_dir), "--json", cwd=tmp_path, timeout=300)
    record = run_json(ran)
    assert record["verdict"] == "passed", (record["assertions"], record["error"])
    assert record["control"]["findings"] == [] and len(record["faulted"]["findings"]) == 3
