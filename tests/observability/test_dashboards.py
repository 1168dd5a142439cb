"""``faultlib dashboards``: the checked-in dashboards are exactly the generator's output for the catalog,
each has what Grafana needs to load it, and a change to a case shows up in ``--check``.

Grafana's dashboard model has no JSON Schema on PyPI: the required fields are checked by
:func:`faultlib.observability.dashboards.required_field_problems`; when ``grafana-foundation-sdk``
(Grafana's generated Python models) is installed, every key we write must also survive a round trip
through its ``Dashboard`` model.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from faultlib.observability.dashboards import (DS_VARIABLE, build_family, collisions, catalog_claims, render,
                                               required_field_problems)
from tests.conftest import REPO, cli, cli_in_process, run_json

BOARDS = sorted((REPO / "compose" / "grafana" / "dashboards").glob("*.json"))
# every numerics case of the catalog (the numerics board is compared whole with the checked-in one)
NUMERICS = tuple(sorted(p.parent.name for p in (REPO / "cases").glob("*/case.yaml")
                        if yaml.safe_load(p.read_text())["fault_class"].startswith("numerics.")))


def _repo(root: Path, cases=NUMERICS, *, grafana: bool = True) -> Path:
    """A small repository layout in ``root``: cases/ with copies of real cases, compose/grafana/ copied."""
    for case in cases:
        shutil.copytree(REPO / "cases" / case, root / "cases" / case, ignore=shutil.ignore_patterns("__pycache__"))
    if grafana:
        shutil.copytree(REPO / "compose" / "grafana", root / "compose" / "grafana")
    return root / "cases"


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def test_the_checked_in_dashboards_are_the_generators_output():
    proc = cli("dashboards", "--check", cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {p.name for p in BOARDS} == {f"faultlib-{f}.json"
                                        for f in ("data", "distributed", "infra", "model", "numerics", "serving")}


@pytest.mark.parametrize("path", BOARDS, ids=[p.name for p in BOARDS])
def test_each_dashboard_has_what_grafana_needs_and_no_panel_overlaps(path):
    board = json.loads(path.read_text())
    assert required_field_problems(board) == []
    assert board["uid"] == path.stem and path.read_text() == render(board)
    panels = board["panels"]
    for i, a in enumerate(panels):
        for b in panels[i + 1:]:
            assert not _overlap(a["gridPos"], b["gridPos"]), f'{a["id"]}; {b["id"]}'
        assert 0 <= a["gridPos"]["x"] and a["gridPos"]["x"] + a["gridPos"]["w"] <= 24


def test_the_required_field_check_finds_what_is_missing():
    board = json.loads(BOARDS[0].read_text())
    del board["schemaVersion"]
    panel = next(p for p in board["panels"] if p["type"] == "timeseries")
    del panel["gridPos"]["w"]
    panel["targets"][0].pop("expr")
    board["panels"][0]["id"] = panel["id"]
    problems = required_field_problems(board)
    assert "missing schemaVersion" in problems and f"panel id {panel['id']} repeats" in problems
    assert any(p.endswith("gridPos.w is not an integer") for p in problems)
    assert any(p.endswith("needs refId and expr") for p in problems)


@pytest.mark.parametrize("path", BOARDS, ids=[p.name for p in BOARDS])
def test_every_key_we_write_is_in_grafanas_dashboard_model(path):
    sdk = pytest.importorskip("grafana_foundation_sdk.models.dashboard",
                              reason="grafana-foundation-sdk not installed: pip install grafana-foundation-sdk")
    from grafana_foundation_sdk.cog.encoder import JSONEncoder

    board = json.loads(path.read_text())
    again = json.loads(json.dumps(sdk.Dashboard.from_json(board), cls=JSONEncoder))

    def keys(value, where=""):
        if isinstance(value, dict):
            return {f"{where}.{k}" for k in value} | {x for k, v in value.items() for x in keys(v, f"{where}.{k}")}
        if isinstance(value, list):
            return {x for i, v in enumerate(value) for x in keys(v, f"{where}[{i}]")}
        return set()

    assert keys(board) - keys(again) == set()


def test_check_fails_after_a_query_changes_and_generation_brings_it_back(tmp_path):
    cases = _repo(tmp_path)
    out = tmp_path / "compose" / "grafana" / "dashboards"
    (out / "notes.json").write_text("{}\n")  # not a generated file: never touched
    first = cli_in_process("dashboards", str(cases), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    removed = sorted(line.rsplit("/", 1)[1] for line in first.stdout.splitlines() if line.startswith("removed"))
    assert removed == ["faultlib-data.json", "faultlib-distributed.json", "faultlib-infra.json", "faultlib-model.json",
                       "faultlib-serving.json"]
    assert sorted(p.name for p in out.iterdir()) == ["faultlib-numerics.json", "notes.json"]
    assert (out / "faultlib-numerics.json").read_text() == (REPO / "compose/grafana/dashboards/faultlib-numerics.json"
                                                              ).read_text()
    assert cli_in_process("dashboards", str(cases), "--check", cwd=tmp_path).returncode == 0

    case_yaml = cases / "fp16_overflow" / "case.yaml"
    old = "min by (phase) (faultlib_loss_scale_low)"
    case_yaml.write_text(case_yaml.read_text().replace(old, "max by (phase) (faultlib_loss_scale_low)"))
    check = cli_in_process("dashboards", str(cases), "--check", cwd=tmp_path)
    assert check.returncode == 1, check.stdout + check.stderr
    assert f"differs: {out / 'faultlib-numerics.json'}" in check.stderr
    assert "run faultlib dashboards" in check.stderr

    validated = cli_in_process("validate", str(cases / "fp16_overflow"), cwd=tmp_path)
    assert validated.returncode == 2 and "panel 3 of dashboard faultlib-numerics shows" in validated.stderr

    assert cli_in_process("dashboards", str(cases), cwd=tmp_path).returncode == 0
    board = json.loads((out / "faultlib-numerics.json").read_text())
    [panel] = [p for p in board["panels"] if p["id"] == 3]
    assert panel["targets"][0]["expr"] == "max by (phase) (faultlib_loss_scale_low)"
    assert cli_in_process("dashboards", str(cases), "--check", "--json", cwd=tmp_path).returncode == 0
    assert cli_in_process("validate", str(cases / "fp16_overflow"), cwd=tmp_path).returncode == 0


def test_two_cases_of_a_family_claiming_one_panel_id_are_refused(tmp_path):
    cases = _repo(tmp_path)
    case_yaml = cases / "nan_gradient" / "case.yaml"
    text = case_yaml.read_text().replace("- {id: 6, title: Non-finite", "- {id: 2, title: Non-finite")
    case_yaml.write_text(text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "{id: 2, title: Non-finite" in l)
    fp16_line = next(i for i, l in enumerate((cases / "fp16_overflow" / "case.yaml").read_text().splitlines(), 1)
                     if "{id: 2, title: Overflow rate" in l)

    [(key, claims)] = collisions(catalog_claims(sorted(cases.iterdir()))).items()
    assert key == ("numerics", 2) and {c.case_id for c in claims} == {"fp16_overflow", "nan_gradient"}

    next_free = 1 + max(panel["id"] for case in NUMERICS for panel in yaml.safe_load(
        (cases / case / "case.yaml").read_text())["observability"]["grafana"]["panels"])
    for command in (("validate", str(cases / "nan_gradient")), ("dashboards", str(cases))):
        proc = cli_in_process(*command, cwd=tmp_path)
        assert proc.returncode == 2, f"{command}; {proc.stdout}; {proc.stderr}"
        assert (f"{case_yaml}:{line}: observability.grafana.panels[0].id: panel id 2 is also claimed by fp16_overflow "
                f"({cases / 'fp16_overflow' / 'case.yaml'}:{fp16_line})") in proc.stderr
        assert (f"unique within the numerics family's dashboard faultlib-numerics (the next free id is {next_free})"
                in proc.stderr)


def test_a_case_must_use_its_familys_dashboard(tmp_path):
    cases = _repo(tmp_path, ("fp16_overflow",))
    case_yaml = cases / "fp16_overflow" / "case.yaml"
    text = case_yaml.read_text().replace("dashboard_uid: faultlib-numerics", "dashboard_uid: faultlib-fp16")
    case_yaml.write_text(text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "dashboard_uid: faultlib-fp16" in l)
    proc = cli_in_process("validate", str(cases / "fp16_overflow"), "--json", cwd=tmp_path)
    assert proc.returncode == 2
    [problem] = run_json(proc)["cases"][0]["problems"]
    assert (problem["file"], problem["line"], problem["field"]) == (str(case_yaml), line,
                                                                    "observability.grafana.dashboard_uid")
    assert "set it to 'faultlib-numerics'" in problem["message"]


def test_without_a_provisioned_datasource_panels_use_a_datasource_variable(tmp_path):
    cases = _repo(tmp_path, ("fp16_overflow",), grafana=False)
    out = tmp_path / "boards"
    proc = cli_in_process("dashboards", str(cases), "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    board = json.loads((out / "faultlib-numerics.json").read_text())
    assert board["templating"]["list"][0]["name"] == DS_VARIABLE
    assert required_field_problems(board) == []
    for panel in (p for p in board["panels"] if p["type"] == "timeseries"):
        assert panel["datasource"]["uid"] == f"${{{DS_VARIABLE}}}"
        assert panel["targets"][0]["datasource"]["uid"] == f"${{{DS_VARIABLE}}}"


def test_row_ids_sit_above_every_case_panel_id():
    from faultlib.cases import load_case

    cases = [load_case(REPO / "cases" / name) for name in NUMERICS]
    raw = cases[0].raw["observability"]["grafana"]["panels"]
    raw[0] = {**raw[0], "id": 250}
    board = build_family("numerics", cases, {"type": "prometheus", "uid": "p"})
    rows = [p["id"] for p in board["panels"] if p["type"] == "row"]
    firsts = [min(p["id"] for p in c.raw["observability"]["grafana"]["panels"]) for c in cases]
    assert rows == [300 + first for first in firsts]
    assert len(set(rows)) == len(cases) and min(rows) > max(p["id"] for p in board["panels"] if p["type"] != "row")
    assert build_family("numerics", cases, {"type": "prometheus", "uid": "p"}) == board  # deterministic


def test_adding_a_case_does_not_renumber_the_other_rows():
    from faultlib.cases import load_case

    cases = [load_case(REPO / "cases" / name) for name in NUMERICS]
    source = {"type": "prometheus", "uid": "p"}
    rows = lambda board: {p["title"]: p["id"] for p in board["panels"] if p["type"] == "row"}  # noqa: E731
    before = rows(build_family("numerics", cases[1:], source))
    after = rows(build_family("numerics", cases, source))  # exploding_gradient sorts first
    assert {k: after[k] for k in before} == before


def test_a_link_or_directory_among_the_dashboards_stops_the_sync_before_any_write(tmp_path):
    import os

    from faultlib.errors import InputError
    from faultlib.observability.dashboards import sync

    out = tmp_path / "boards"
    out.mkdir()
    os.symlink(tmp_path / "victim.json", out / "faultlib-b.json")
    with pytest.raises(InputError, match="symbolic link"):
        sync({"faultlib-a.json": "{}", "faultlib-b.json": "{}"}, out, check=False)
    assert sorted(p.name for p in out.iterdir()) == ["faultlib-b.json"] and not (tmp_path / "victim.json").exists()
    os.unlink(out / "faultlib-b.json")
    (out / "faultlib-stale.json").mkdir()  # a stale generated name that is a directory: not removed, nothing written
    with pytest.raises(InputError, match="not removed"):
        sync({"faultlib-a.json": "{}"}, out, check=False)
    assert sorted(p.name for p in out.iterdir()) == ["faultlib-stale.json"]
