"""`faultlib run FILE` says the path is a file, not that it is missing: `faultlib run README.md` said
"case directory not found" for a file that is there, and `faultlib run cases/x/case.yaml` (the case's own
file) got the same message."""

from __future__ import annotations

from tests.conftest import cli


def test_a_file_is_named_a_file_and_a_case_yaml_points_to_its_folder(tmp_path):
    (tmp_path / "notes.md").write_text("# my notes\n")
    case = tmp_path / "cases" / "slow_lookup"
    case.mkdir(parents=True)
    (case / "case.yaml").write_text("id: slow_lookup\n")

    proc = cli("run", "notes.md", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "notes.md: is a file, not a case directory: pass a directory holding case.yaml" in proc.stderr

    proc = cli("run", "cases/slow_lookup/case.yaml", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"is the case's case.yaml: pass the directory holding it ({case.resolve()})" in proc.stderr

    proc = cli("run", "missing_case", cwd=tmp_path)
    assert proc.returncode == 2 and "case directory not found" in proc.stderr, proc.stderr
