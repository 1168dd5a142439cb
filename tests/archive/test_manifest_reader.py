"""Reading manifests back: one closed-schema validation (faultlib.archive.manifest.parse_manifest) behind
`archive get`, `archive ls` and `archive flush`, refusing malformed manifests with exit 2 and the run and
field named; a malformed run.json never breaks `archive ls`; what comes from an archive is never markup."""

from __future__ import annotations

import json

import pytest

from faultlib.archive import FileArchive, ManifestError, S3Archive, parse_manifest
from faultlib.archive.manifest import verify
from faultlib.errors import ArchiveError, InputError
from faultlib.evidence import layout
from faultlib.evidence.seal import write_manifest
from tests.conftest import cli, cli_in_process, run_json

CASE, RUN = "fp16_overflow", "20261130T000000Z-abcdef"
SHA = "0" * 64


def _doc(*files: dict, **top) -> dict:
    return {"manifest_version": 1, "case": CASE, "run_id": RUN, "files": list(files), **top}


def _entry(name="traces.jsonl", size=3, sha256=SHA) -> dict:
    return {"name": name, "bytes": size, "sha256": sha256}


def _good_files() -> list[dict]:
    return [_entry(f"f{i}.txt") for i in range(3)]


# (document, field named, key phrase): every kind of malformed manifest the readers must refuse
MALFORMED = [
    ("{}", "manifest_version", "missing"),
    ("not json at all", None, "invalid JSON"),
    ("[]", "(root)", "must be a JSON object"),
    ('"files"', "(root)", "must be a JSON object"),
    ('{"manifest_version": 1, "manifest_version": 1}', None, "duplicate key"),
    (json.dumps(_doc(manifest_version=2)), "manifest_version", "must be 1"),
    (json.dumps({**_doc(), "extra": 1}), "extra", "unknown field"),
    (json.dumps(_doc(case="../x")), "case", "without '/'"),
    (json.dumps(_doc(case="..")), "case", "not a plain relative name"),
    (json.dumps(_doc(run_id="a/b")), "run_id", "without '/'"),
    (json.dumps(_doc(files={})), "files", "must be a list"),
    (json.dumps(_doc(*_good_files(), 7)), "files[3]", "must be an object"),
    (json.dumps(_doc(*_good_files(), {"name": "x", "bytes": 1})), "files[3].sha256", "missing"),
    (json.dumps(_doc(*_good_files(), {**_entry("x"), "mode": 420})), "files[3].mode", "unknown field"),
    (json.dumps(_doc(*_good_files(), _entry(name=5))), "files[3].name", "must be a '/'-separated path"),
    (json.dumps(_doc(*_good_files(), _entry(name=""))), "files[3].name", "may not be empty"),
    (json.dumps(_doc(*_good_files(), _entry(size=-1))), "files[3].bytes", "must be a non-negative integer"),
    (json.dumps(_doc(*_good_files(), _entry(size=1.0))), "files[3].bytes", "must be a non-negative integer"),
    (json.dumps(_doc(*_good_files(), _entry(size=2.5))), "files[3].bytes", "must be a non-negative integer"),
    (json.dumps(_doc(*_good_files(), _entry(size=True))), "files[3].bytes", "must be a non-negative integer"),
    (json.dumps(_doc(*_good_files(), _entry(size="3"))), "files[3].bytes", "must be a non-negative integer"),
    (json.dumps(_doc(*_good_files(), _entry(size=None))), "files[3].bytes", "must be a non-negative integer"),
    (json.dumps(_doc(*_good_files(), _entry(sha256="abc"))), "files[3].sha256", "64 lowercase hex"),
    (json.dumps(_doc(*_good_files(), _entry(sha256="g" * 64))), "files[3].sha256", "64 lowercase hex"),
    (json.dumps(_doc(*_good_files(), _entry(sha256="A" * 64))), "files[3].sha256", "64 lowercase hex"),
    (json.dumps(_doc(*_good_files(), _entry(sha256=SHA + "\n"))), "files[3].sha256", "64 lowercase hex"),
    (json.dumps(_doc(*_good_files(), _entry("f1.txt"))), "files[3].name", "listed twice (also files[1].name)"),
    (json.dumps(_doc(*_good_files(), _entry("../../etc/x"))), "files[3].name", "not a plain relative name"),
    (json.dumps(_doc(*_good_files(), _entry("/etc/passwd"))), "files[3].name", "not a plain relative name"),
    (json.dumps(_doc(*_good_files(), _entry("a//b"))), "files[3].name", "not a plain relative name"),
    (json.dumps(_doc(*_good_files(), _entry("./a"))), "files[3].name", "not a plain relative name"),
    (json.dumps(_doc(*_good_files(), _entry("a\\..\\b"))), "files[3].name", "not a plain relative name"),
    (json.dumps(_doc(*_good_files(), _entry("a\x00b"))), "files[3].name", "not a plain relative name"),
    (json.dumps(_doc(*_good_files(), _entry("a\x1b[2Jb"))), "files[3].name", "control character"),
    (json.dumps(_doc(*_good_files(), _entry("\udc80"))), "files[3].name", "not valid Unicode"),
    (json.dumps(_doc(*_good_files(), _entry("a" * 256))), "files[3].name", "too long"),
    (json.dumps(_doc(*_good_files(), _entry(layout.MANIFEST))), "files[3].name", "may not list itself"),
    (json.dumps(_doc(*_good_files(), _entry("f0.txt/inner"))), "files[3].name", "lies inside 'f0.txt'"),
    (json.dumps(_doc(*_good_files(), _entry(size=12345))).replace("12345", "1e999"), None, "not finite"),
    (json.dumps(_doc(*_good_files(), _entry(size=12345))).replace("12345", "NaN"), None, "not a JSON number"),
    (json.dumps(_doc(*_good_files(), _entry(size=12345))).replace("12345", "9" * 30), None, "out of range"),
    ('{"manifest_version": 1, "files": [' + "[" * 100 + "]" * 100 + "]}", None, "nested more than"),
]


@pytest.mark.parametrize("document, field, phrase", MALFORMED)
def test_every_malformed_manifest_is_refused_naming_the_run_and_field(document, field, phrase):
    with pytest.raises(ManifestError) as info:
        parse_manifest(document.encode(), run=f"{CASE}/{RUN}", path="x/manifest.json")
    error = info.value
    assert isinstance(error, InputError) and isinstance(error, ArchiveError) and error.exit_code == 2
    assert phrase in error.message
    assert error.field == field
    assert str(error).startswith(f"{CASE}/{RUN}: manifest.json")
    if field:
        assert f"manifest.json: {field}: " in str(error)


def test_the_example_message_of_the_issue():
    doc = _doc(*_good_files(), _entry(size=-4))
    with pytest.raises(ManifestError) as info:
        parse_manifest(json.dumps(doc), run=f"{CASE}/{RUN}", path="x")
    assert str(info.value) == f"{CASE}/{RUN}: manifest.json: files[3].bytes: must be a non-negative integer"
    assert info.value.to_json()["field"] == "files[3].bytes" and info.value.to_json()["run"] == f"{CASE}/{RUN}"


def test_a_manifest_of_another_run_is_refused_and_a_good_one_accepted():
    doc = _doc(_entry("dumps/state.pt", 0), _entry("traces.jsonl"))
    manifest = parse_manifest(json.dumps(doc), run="r", path="x", expect=(CASE, RUN))
    assert [e.name for e in manifest.files] == ["dumps/state.pt", "traces.jsonl"]
    with pytest.raises(ManifestError, match="run_id: says .* but the run is stored as 'other'"):
        parse_manifest(json.dumps(doc), run="r", path="x", expect=(CASE, "other"))


def _archive_with(tmp_path, manifest: str | None, run_json: str | None = None, *, case=CASE, run=RUN):
    """A file:// archive holding one good run and one run whose manifest (and run.json) are given."""
    root = tmp_path / "runs"
    good = root / "good_case" / "20261130T000001Z-000001"
    good.mkdir(parents=True)
    (good / layout.TRACES).write_text("{}\n")
    (good / layout.RUN).write_text(json.dumps({"verdict": "passed", "started_at": "2026-11-30T00:00:01+00:00"}))
    write_manifest(good, run_id=good.name, case_id="good_case")
    bad = root / case / run
    bad.mkdir(parents=True)
    (bad / layout.TRACES).write_text("{}\n")
    if run_json is not None:
        (bad / layout.RUN).write_text(run_json)
    if manifest is not None:
        (bad / layout.MANIFEST).write_text(manifest)
    return root, bad


BYTES_FLOAT = json.dumps(_doc(*_good_files(), _entry(size=1.5)))


@pytest.mark.parametrize("document", ["{}", "not json", "[1, 2]", BYTES_FLOAT])
def test_file_archive_get_and_ls_refuse_a_malformed_manifest_with_exit_2(tmp_path, document):
    root, bad = _archive_with(tmp_path, document)
    got = cli_in_process("archive", "get", f"file://{root}", CASE, RUN, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2, got.stderr
    assert f"error: {CASE}/{RUN}: manifest.json" in got.stderr and "Traceback" not in got.stderr
    assert not (tmp_path / "out").exists()

    listed = cli_in_process("archive", "ls", f"file://{root}", "--json", cwd=tmp_path)
    assert listed.returncode == 2, listed.stderr
    runs = {r["case"]: r for r in run_json(listed)["runs"]}
    assert runs["good_case"]["complete"] and runs["good_case"]["note"] is None, "the good run is still listed"
    assert runs[CASE]["complete"] is False and runs[CASE]["note"].startswith("manifest.json")
    human = cli_in_process("archive", "ls", f"file://{root}", cwd=tmp_path)
    assert human.returncode == 2 and "good_case" in human.stdout
    assert f"error: {CASE}/{RUN}: manifest.json" in human.stderr
    with pytest.raises(ManifestError):
        verify(bad)


def test_get_names_the_field_of_the_issue_example(tmp_path):
    root, _ = _archive_with(tmp_path, BYTES_FLOAT)
    with pytest.raises(ManifestError) as info:
        FileArchive(root).get(CASE, RUN, tmp_path / "out")
    assert str(info.value) == f"{CASE}/{RUN}: manifest.json: files[3].bytes: must be a non-negative integer"


@pytest.mark.parametrize("record, note", [
    ("{not json", "run.json:1: invalid JSON"),
    ("[1, 2, 3]", "run.json: not a JSON object"),
    ('{"verdict": {"nested": true}, "started_at": 5}', "run.json: verdict: not a string"),
    ('{"verdict": "passed", "verdict": "failed"}', "duplicate key"),
    ("\xff\xfe", "invalid JSON"),
])
def test_a_malformed_run_json_shows_verdict_question_mark_and_a_note(tmp_path, record, note):
    root, bad = _archive_with(tmp_path, None, record)
    write_manifest(bad, run_id=RUN, case_id=CASE)
    listed = cli_in_process("archive", "ls", f"file://{root}", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in run_json(listed)["runs"] if r["case"] == CASE)
    assert row["verdict"] == "?" and note in row["note"] and row["complete"] is True
    human = cli_in_process("archive", "ls", f"file://{root}", cwd=tmp_path)
    assert human.returncode == 0 and "?" in human.stdout and "Traceback" not in human.stderr


def test_ids_holding_rich_markup_are_printed_as_they_are(tmp_path):
    case, run = "[bold]case", "[bold red]run]"
    root, bad = _archive_with(tmp_path, None, '{"verdict": "[/]", "started_at": "[red]x"}', case=case, run=run)
    write_manifest(bad, run_id=run, case_id=case)
    listed = cli("archive", "ls", f"file://{root}", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "[bold]case" in listed.stdout and "[bold red]run]" in listed.stdout and "[red]x" in listed.stdout
    assert "[/]" in listed.stdout  # the verdict, as run.json holds it
    got = cli("archive", "get", f"file://{root}", case, run, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 0 and f"{case}/{run}: 3 files verified" in got.stdout, got.stderr
    repaired = cli("archive", "repair", f"file://{root}", cwd=tmp_path)
    assert repaired.returncode == 0 and "nothing to repair" in repaired.stdout


def test_control_characters_from_an_archive_do_not_reach_the_terminal(tmp_path):
    root, _ = _archive_with(tmp_path, None, '{"verdict": "\\u001b[2Jgone"}', case="c\x1b]0;x\x07", run="r")
    listed = cli("archive", "ls", f"file://{root}", cwd=tmp_path)
    assert listed.returncode == 0 and "\x1b" not in listed.stdout and "\\x1b" in listed.stdout


def test_s3_local_files_use_the_same_validation(tmp_path, monkeypatch):
    pytest.importorskip("minio", reason="the minio client is not installed: pip install 'faultlib-ml[s3]'")
    monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    archive = S3Archive("s3://faultlib-runs/x", spool_root=tmp_path / "spool", retry_delays_s=())
    run_dir = archive.staging_dir(CASE, RUN)
    (run_dir / layout.TRACES).write_text("{}\n")
    (run_dir / layout.MANIFEST).write_text(BYTES_FLOAT)
    with pytest.raises(ArchiveError, match=r"files\[3\]\.bytes: must be a non-negative integer"):
        archive.publish(run_dir, CASE, RUN)
    report = archive.flush()  # the store is never contacted for a damaged run
    assert [d.run_id for d in report.damaged] == [RUN] and report.exit_code == 2
    assert "files[3].bytes: must be a non-negative integer" in report.damaged[0].reason
