"""The "write your own case" page is runnable: its blocks make a case that validates and passes."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO, cli, cli_in_process, run_json

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
    """The page's commands, in a copy of the catalog and its dashboards: `faultlib dashboards`, then
    validate (which checks the panel against the regenerated dashboard), then the run. The run is the page's
    contract across the process boundary (its own interpreter, as a user types it); validate and dashboards only
    answer, so they run through the same entry in this process (:func:`tests.conftest.cli_in_process`)."""
    import shutil

    from faultlib.observability.prometheus import missing_binaries

    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    shutil.copytree(REPO / "cases", tmp_path / "cases", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "compose", tmp_path / "compose")
    case_dir = tmp_path / "cases" / "my_first_case"
    case_dir.mkdir()
    for name, body in _blocks().items():
        (case_dir / name).write_text(body)
    stale = cli_in_process("validate", "cases/my_first_case", cwd=tmp_path)
    assert stale.returncode == 2 and "run faultlib dashboards" in stale.stderr, "why the page says dashboards first"
    assert cli_in_process("dashboards", cwd=tmp_path).returncode == 0
    validated = cli_in_process("validate", "cases/my_first_case", cwd=tmp_path)
    assert validated.returncode == 0, validated.stderr
    prometheus = missing_binaries() is None
    ran = cli("run", "cases/my_first_case", "--json", *(["--prometheus"] if prometheus else []), cwd=tmp_path,
              timeout=300)
    record = run_json(ran)
    assert record["verdict"] == "passed", f'{record["assertions"]}; {record["error"]}; {record["findings"]}'
    assert record["control"]["findings"] == [] and len(record["faulted"]["findings"]) == 3
    assert ("promql_shows_fault" in record["assertions"]["passed"]) is prometheus
