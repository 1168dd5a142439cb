"""``faultlib regen`` black-box in a temp directory, on copies of real catalog cases: one changed package
re-runs exactly the cases requiring it and rewrites their case.yaml; a case that no longer reproduces
fails with the package that changed; Python selects everything; bad fingerprints and traces exit 2;
``--traces`` proposes injection points for the edges no case covers."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

from faultlib.fingerprint import collect, dumps
from faultlib.readers import load_yaml
from faultlib.regen.rewrite import bump_patch
from tests.conftest import CRDS, REPO, cli, cli_in_process, needs_crds, tiny_case_data, write_case
from tests.regen.conftest import FAST_CASES, older
from tests.traces.twoservice import record

CURRENT_PYYAML = metadata.version("pyyaml")


def _json(proc: subprocess.CompletedProcess) -> dict:
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)


def _pyyaml_was_older(fp: dict) -> None:
    fp["packages"]["pyyaml"] = older(fp["packages"]["pyyaml"])


def _case_yamls(root: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in sorted(root.glob("*/case.yaml"))}


def _archived(archive: Path) -> list[str]:
    return sorted(p.name for p in archive.iterdir() if p.is_dir()) if archive.is_dir() else []


def test_one_changed_package_reruns_exactly_the_affected_cases_and_rewrites_them(catalog, old_fingerprint, tmp_path):
    root = catalog(*FAST_CASES)
    # comments in the places a re-dump would lose or move them: they must all survive
    path = root / "label_mapping_drift" / "case.yaml"
    original = path.read_text()
    version = load_yaml(original, path).data["version"]
    text = ("# label_mapping_drift: re-verified by faultlib regen\n"
            + original.replace(f"version: {version}\n", f"version: {version}   # bumped on every re-verification\n")
                      .replace("verified_with:\n",
                               "verified_with:   # what it last passed on\n  # interpreter first\n"))
    path.write_text(text)
    untouched = (root / "scaler_leakage" / "case.yaml").read_bytes()
    untouched_feature = (root / "feature_config_diff" / "case.yaml").read_text()
    since = old_fingerprint(_pyyaml_was_older)
    archive = tmp_path / "runs"

    proc = cli("regen", "--since", str(since), "--cases", str(root), "--archive", f"file://{archive}", "--jobs", "2",
               "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    out = _json(proc)
    old_pyyaml = json.loads(since.read_text())["packages"]["pyyaml"]
    assert out["diff"]["packages"] == {"pyyaml": [old_pyyaml, CURRENT_PYYAML]}
    assert [s["case"] for s in out["selected"]] == ["feature_config_diff", "label_mapping_drift"]
    assert out["selected"][0]["reasons"] == [{"kind": "package", "name": "pyyaml", "old": old_pyyaml,
                                             "new": CURRENT_PYYAML}]
    assert [(r["case"], r["status"], r["verdict"]) for r in out["results"]] == [
        ("feature_config_diff", "updated", "passed"), ("label_mapping_drift", "updated", "passed")]
    assert all(r["control_findings"] == 0 for r in out["results"])
    assert _archived(archive) == ["feature_config_diff", "label_mapping_drift"]  # exactly the affected cases ran

    # the exact diff: the version line and the verified_with entries, nothing else; every comment kept
    old = load_yaml(text, path).data
    expected = text.replace(f"version: {version}   #", f"version: {bump_patch(old['version'])}   #")
    current = {"python": platform.python_version(), "scikit-learn": metadata.version("scikit-learn")}
    for key, value in current.items():
        expected = expected.replace(f'  {key}: "{old["verified_with"][key]}"\n', f'  {key}: "{value}"\n')
    expected += f'  numpy: "{metadata.version("numpy")}"\n  pyyaml: "{CURRENT_PYYAML}"\n'
    assert path.read_text() == expected
    updated = next(r for r in out["results"] if r["case"] == "label_mapping_drift")["updated"]
    assert updated["version"] == [version, bump_patch(version)]
    assert updated["verified_with"] == {**current, "numpy": metadata.version("numpy"), "pyyaml": CURRENT_PYYAML}
    assert (root / "scaler_leakage" / "case.yaml").read_bytes() == untouched
    feature_version = load_yaml(untouched_feature, "f").data["version"]
    assert load_yaml((root / "feature_config_diff" / "case.yaml").read_text(), "f").data["version"] == \
        bump_patch(feature_version)
    valid = cli("validate", *(str(root / c) for c in FAST_CASES), cwd=tmp_path)
    assert valid.returncode == 0, valid.stderr


def test_a_case_that_no_longer_reproduces_is_reported_with_the_package_that_changed(catalog, old_fingerprint,
                                                                                     tmp_path):
    root = catalog("label_mapping_drift", "scaler_leakage")
    path = root / "label_mapping_drift" / "case.yaml"
    # the label_order shim's window starts after the last of the 30 batches: the fault never happens
    broken = path.read_text().replace("        start_step: 10\n", "        start_step: 1000\n")
    path.write_text(broken)
    since = old_fingerprint(_pyyaml_was_older)
    old_pyyaml = json.loads(since.read_text())["packages"]["pyyaml"]

    proc = cli("regen", "--since", str(since), "--cases", str(root), "--archive", f"file://{tmp_path / 'runs'}",
               "--junit", "out/regen.xml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert "FAILED label_mapping_drift: assertion(s) failed: accuracy_collapses" in proc.stdout
    junit = ET.parse(tmp_path / "out" / "regen.xml").getroot()
    failed = {tc.get("name") for tc in junit.iter("testcase") if tc.find("failure") is not None}
    assert "label_mapping_drift::accuracy_collapses" in failed
    assert f"changed: pyyaml {old_pyyaml} -> {CURRENT_PYYAML}" in proc.stdout
    assert "evidence: file://" in proc.stdout
    assert path.read_text() == broken  # not re-verified: nothing rewritten
    assert _archived(tmp_path / "runs") == ["label_mapping_drift"]


def test_a_control_run_that_raises_a_finding_fails_even_when_the_suite_passes(tmp_path, old_fingerprint):
    """A detector that now fires without the fault: the suite of this tiny real case does not look."""
    repro = '''
from faultlib import repro
from faultlib.findings import Finding

with repro.context() as ctx:
    with ctx.step(0, total=1) as span:
        span.set(value=0)
    ctx.report(Finding("tiny", "warning", f"fired in the {ctx.phase} run", {"step": 0}))
    ctx.summary(done=True)
'''
    data = tiny_case_data("noisy_control")
    data["assertions"] = [data["assertions"][0]]
    write_case(tmp_path / "cases", data, repro=repro,
               test="def test_steps_recorded(evidence):\n    assert evidence.faulted.findings\n")
    since = old_fingerprint(_pyyaml_was_older)
    before = (tmp_path / "cases" / "noisy_control" / "case.yaml").read_bytes()
    proc = cli("regen", "--since", str(since), "--cases", "cases", "--archive", f"file://{tmp_path / 'runs'}",
               "--json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr + proc.stdout
    [result] = _json(proc)["results"]
    assert (result["status"], result["verdict"], result["control_findings"]) == ("failed", "passed", 1)
    assert "the control run raised 1 finding(s)" in result["reason"]
    assert result["changes"][0]["name"] == "pyyaml"
    assert (tmp_path / "cases" / "noisy_control" / "case.yaml").read_bytes() == before


def test_a_python_change_selects_every_case_and_a_dry_run_writes_nothing(old_fingerprint, tmp_path):
    root = tmp_path / "cases"
    shutil.copytree(REPO / "cases", root)
    before = _case_yamls(root)
    since = old_fingerprint(lambda fp: fp.update(python="3.10.14"))

    proc = cli("regen", "--since", str(since), "--cases", str(root), "--dry-run", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = _json(proc)
    assert out["diff"]["python"] == ["3.10.14", platform.python_version()] and out["diff"]["selects_all"]
    assert [s["case"] for s in out["selected"]] == sorted(before)
    assert all(s["reasons"][0] == {"kind": "python", "name": "python", "old": "3.10.14",
                                   "new": platform.python_version()} for s in out["selected"])
    assert out["results"] == [] and [u["case"] for u in out["would_update"]] == sorted(before)
    preview = next(u for u in out["would_update"] if u["case"] == "label_mapping_drift")
    version = load_yaml(before["label_mapping_drift"].decode(), "l").data["version"]
    assert f"-version: {version}\n+version: {bump_patch(version)}\n" in preview["diff"] and preview["error"] is None
    assert _case_yamls(root) == before
    assert not (tmp_path / ".faultlib").exists()


def test_a_dry_run_prints_the_selection_the_known_changes_and_the_diffs(catalog, old_fingerprint, tmp_path):
    root = catalog(*FAST_CASES)
    before = _case_yamls(root)
    since = old_fingerprint(lambda fp: fp["packages"].update({"scikit-learn": "1.3.2"}))
    proc = cli("regen", "--since", str(since), "--cases", str(root), "--dry-run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    sklearn = metadata.version("scikit-learn")
    assert "3 of 3 case(s) selected" in proc.stdout
    for case in FAST_CASES:
        assert f"{case}: scikit-learn 1.3.2 -> {sklearn}" in proc.stdout
    # 1.3.2 -> the installed release crosses 1.4.0, where OneHotEncoder's `sparse` was removed
    assert "known change crossed: scikit-learn 1.4.0: OneHotEncoder" in proc.stdout
    assert "https://scikit-learn.org/" in proc.stdout
    version = load_yaml(before["label_mapping_drift"].decode(), "l").data["version"]
    assert f"+version: {bump_patch(version)}" in proc.stdout and "dry run: nothing was run or written" in proc.stdout
    # the diff is printed as a diff, one line each (it was one line with its breaks shown as \n)
    assert f"\n-version: {version}\n+version: {bump_patch(version)}\n" in proc.stdout, proc.stdout
    assert "\\n" not in proc.stdout, proc.stdout
    assert _case_yamls(root) == before


@pytest.mark.parametrize(("content", "message"), [
    ("", "is empty"),
    ("not json at all\n", "invalid JSON"),
    ('{"format": 1, "python": "3.11.7", "packages": {"numpy": "2.', "invalid JSON"),
    ("[1, 2, 3]\n", "not a fingerprint"),
    ('{"format": 1, "platform": "Linux"}\n', "not a fingerprint"),
    ('{"format": 1, "python": "3.11.7", "packages": {"numpy": 2}}\n', "packages.numpy"),
])
def test_a_bad_fingerprint_file_exits_2_naming_the_file(catalog, tmp_path, content, message):
    root = catalog("scaler_leakage")
    bad = tmp_path / "old.json"
    bad.write_text(content)
    proc = cli_in_process("regen", "--since", str(bad), "--cases", str(root), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "old.json" in proc.stderr and message in proc.stderr
    assert not (tmp_path / ".faultlib").exists()


@pytest.mark.parametrize(("content", "message"), [
    ("", "is empty"),
    ("{not json\n", "invalid JSON"),
    ('{"spans": []}\n', "not OTLP/JSON traces"),
    ('{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a", "traceId": "ab"', "invalid JSON"),
])
def test_bad_traces_exit_2_before_any_case_runs(catalog, old_fingerprint, tmp_path, content, message):
    root = catalog("scaler_leakage")
    bad = tmp_path / "new.json"
    bad.write_text(content)
    since = old_fingerprint(lambda fp: fp["packages"].update(numpy=older(fp["packages"]["numpy"])))
    proc = cli_in_process("regen", "--since", str(since), "--cases", str(root), "--traces", str(bad), "--archive",
               f"file://{tmp_path / 'runs'}", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr + proc.stdout
    assert "new.json" in proc.stderr and message in proc.stderr
    assert not (tmp_path / "runs").exists()


@pytest.fixture(scope="module")
def recorded_trace(tmp_path_factory, catalog_run):
    """A real trace: the traces.jsonl of a run of cases/downstream_timeout (the suite's shared run, also checked
    end to end by tests/test_e2e_downstream_timeout.py; read, never written), followed by 30 orders through the
    instrumented two-service app (frontend -> inventory, 3 of them failing), as one OTLP/JSON Lines file."""
    work = tmp_path_factory.mktemp("regen_trace")
    run = catalog_run("downstream_timeout")
    assert run.returncode == 0, run.stderr
    run_dir = Path(json.loads(run.stdout)["archive_uri"].removeprefix("file://"))
    app = record(work / "twoservice.jsonl", broken={20, 21, 22})
    trace = work / "incident.jsonl"
    trace.write_bytes((run_dir / "traces.jsonl").read_bytes() + app.read_bytes())
    return trace


@needs_crds
def test_traces_propose_injection_points_for_uncovered_edges_only(recorded_trace, catalog, tmp_path):
    root = catalog("downstream_timeout")
    since = tmp_path / "now.json"
    since.write_text(dumps(collect()))
    proc = cli("regen", "--since", str(since), "--cases", str(root), "--traces", str(recorded_trace),
               "--crd-dir", str(CRDS), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = _json(proc)
    assert out["selected"] == [] and out["results"] == []
    covered = {(c["parent"]["operation"], c["child"]["operation"]): c["cases"] for c in out["covered"]}
    assert covered == {("faultlib.repro", "serve.request"): ["downstream_timeout"],
                       ("serve.request", "model_service.predict"): ["downstream_timeout"],
                       ("model_service.predict", "feature_service.fetch"): ["downstream_timeout"]}
    edges = [(p["edge"]["parent"]["service"], p["edge"]["parent"]["operation"], p["edge"]["child"]["service"],
              p["edge"]["child"]["operation"]) for p in out["proposals"]]
    assert edges == [("frontend", "frontend.order", "frontend", "inventory.get"),
                     ("frontend", "inventory.get", "inventory", "inventory.lookup")]
    for proposal in out["proposals"]:
        assert proposal["edge"]["count"] == 30 and proposal["edge"]["errors"] == 3
        assert proposal["shim"]["shim"] == "tcp_latency" and proposal["shim"]["params"]["endpoint"] == "inventory"
        assert proposal["chaos"]["kind"] == "NetworkChaos" and proposal["validated"] is True

    text = cli("regen", "--since", str(since), "--cases", str(root), "--traces", str(recorded_trace),
               "--crd-dir", str(CRDS), cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "5 call edge(s), 3 covered by the catalog, 2 proposed injection point(s)" in text.stdout
    assert "tcp_latency endpoint=inventory" in text.stdout and "valid" in text.stdout
    assert "faultlib new NAME --from-trace" in text.stdout


def test_control_characters_in_a_fingerprint_are_printed_escaped(catalog, old_fingerprint, tmp_path):
    root = catalog(*FAST_CASES)
    since = old_fingerprint(lambda fp: fp["packages"].update({"scikit-learn": "1.3\x1b]0;pwned\x07\x1b[2J"}))
    proc = cli("regen", "--since", str(since), "--cases", str(root), "--dry-run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert "1.3\\x1b]0;pwned\\x07" in proc.stdout
