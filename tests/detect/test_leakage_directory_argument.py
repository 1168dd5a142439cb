"""``check leakage`` given a directory says so (exit 2) and what to pass instead, rather than calling it a file with
"no extension"; a file without an extension keeps that message."""

from __future__ import annotations

from tests.check.test_fuzz_checks import run_check


def test_a_directory_is_named_as_one(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    (folder / "prep.py").write_text("rows = 1\n")
    code, out = run_check("leakage", str(folder))
    assert code == 2 and out["message"].startswith("is a directory"), out
    assert ".py or .ipynb file in it" in out["message"], out


def test_a_file_without_an_extension_is_still_named_by_its_suffix(tmp_path):
    script = tmp_path / "prep"
    script.write_text("rows = 1\n")
    code, out = run_check("leakage", str(script))
    assert code == 2 and "(no extension)" in out["message"], out
