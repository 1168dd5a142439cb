"""Every place faultlib writes follows one rule (faultlib.outputs): the path as typed holds no symbolic link, no
down-and-up ``..``; a link is refused with exit 2 naming it, and nothing is written where it points."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.archive import FileArchive
from faultlib.errors import ArchiveError, InputError
from faultlib.outputs import output_dir, output_file, replace_file
from tests.conftest import cli

TRACE = Path(__file__).parent / "traces" / "data" / "incident.jsonl"
CASES = Path(__file__).parents[1] / "cases"


@pytest.fixture
def elsewhere(tmp_path):
    """A directory outside the working one (where a planted link points), and the working directory."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "work").mkdir()
    return tmp_path / "elsewhere", tmp_path / "work"


def _everything(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("typed", ["link", "link/sub", "real/link/sub", "{abs}/link/sub"])
def test_a_link_anywhere_in_the_typed_path_is_refused_naming_it(elsewhere, typed, monkeypatch):
    target, work = elsewhere
    (work / "real").mkdir()
    (work / "link").symlink_to(target)
    (work / "real" / "link").symlink_to(target)
    monkeypatch.chdir(work)
    typed = typed.format(abs=work)
    with pytest.raises(InputError, match=r"link\b.* is a symbolic link \(to .*elsewhere\).*name the real directory"):
        output_dir(typed)
    with pytest.raises(InputError, match="is a symbolic link"):
        output_file(f"{typed}/report.json", parents=True)
    assert _everything(target) == []


def test_a_path_going_down_and_back_up_is_refused_a_leading_dotdot_is_kept(tmp_path, monkeypatch):
    (tmp_path / "w").mkdir()
    monkeypatch.chdir(tmp_path / "w")
    with pytest.raises(InputError, match=r"goes down and back up .*name \.\./x itself"):
        output_dir("reports/../../x")
    assert not (tmp_path / "w" / "reports").exists() and not (tmp_path / "x").exists()
    assert output_dir("../y/z") == Path("../y/z") and (tmp_path / "y" / "z").is_dir()
    assert output_dir("~") == Path.home()


def test_a_file_in_the_way_and_missing_parts_without_create(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("f").write_text("x")
    with pytest.raises(InputError, match=r"is not a directory \(f is in the way\)"):
        output_dir("f/sub")
    assert output_dir("a/b", create=False) == Path("a/b") and not Path("a").exists()
    assert output_dir("a/b").is_dir()


@pytest.mark.skipif(os.geteuid() == 0, reason="root enters and writes any directory: permissions cannot refuse")
def test_a_directory_without_permission_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(InputError, match="cannot be created"):
        output_dir(locked / "sub")


def test_replace_file_never_writes_through_a_link_at_the_target(tmp_path):
    precious = tmp_path / "precious"
    precious.write_text("keep")
    (tmp_path / "rank0.json").symlink_to(precious)
    assert replace_file(tmp_path / "rank0.json", b"{}") == 2
    assert precious.read_text() == "keep"
    assert not (tmp_path / "rank0.json").is_symlink() and (tmp_path / "rank0.json").read_text() == "{}"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_file_archive_root_and_run_directories_refuse_links(elsewhere):
    target, work = elsewhere
    (work / "runs").symlink_to(target)
    with pytest.raises(ArchiveError, match=r"runs: archive directory: is a symbolic link"):
        FileArchive(work / "runs")
    (work / "real").mkdir()
    (work / "real" / "fp16_overflow").symlink_to(target)  # a planted case directory inside the archive
    archive = FileArchive(work / "real")
    with pytest.raises(InputError, match="fp16_overflow: run directory: is a symbolic link"):
        archive.staging_dir("fp16_overflow", "run1")
    assert archive.staging_dir("other_case", "run1").is_dir()
    assert _everything(target) == []


def test_flight_recorder_fatal_trace_never_truncates_a_planted_link(tmp_path, monkeypatch):
    from faultlib.detect.distributed import fatal

    precious = tmp_path / "precious"
    precious.write_text("keep")
    (tmp_path / "rank0.fatal").symlink_to(precious)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setattr("faulthandler.is_enabled", lambda: False)
    assert fatal.enable(tmp_path, 0) is None  # refused (said on stderr); the recorder still records
    assert precious.read_text() == "keep"


def test_cli_writers_refuse_a_linked_directory_with_exit_2_and_write_nothing(elsewhere):
    target, work = elsewhere
    (work / "cases").symlink_to(target)
    (work / "train.py").write_text("print('ran')\n")
    attempts = {
        "new": ["new", "tiny_case", "--from-trace", str(TRACE), "--out", "cases"],
        "new-nested": ["new", "tiny_case", "--from-trace", str(TRACE), "--out", "cases/sub"],
        "fingerprint": ["fingerprint", "--out", "cases/fp.json"],
        "dashboards": ["dashboards", str(CASES), "--out", "cases/dash"],
        "trace --dump-dir": ["trace", "--dump-dir", "cases/d", "--", "python", "train.py"],
        "run --archive": ["run", str(CASES / "fp16_overflow"), "--archive", "file://cases/runs"],
    }
    for what, args in attempts.items():
        proc = cli(*args, cwd=work, timeout=120)
        assert proc.returncode == 2, f"{what}; {proc.stdout}; {proc.stderr}"
        assert "is a symbolic link" in proc.stderr and "cases" in proc.stderr, f"{what}; {proc.stderr}"
        assert "ran" not in proc.stdout
    assert _everything(target) == []


def test_new_writes_into_a_real_nested_directory(tmp_path):
    proc = cli("new", "tiny_case", "--from-trace", str(TRACE), "--out", "a/b", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["case_dir"] == "a/b/tiny_case"
    assert sorted(p.name for p in (tmp_path / "a" / "b").iterdir()) == ["tiny_case"]


PART = st.sampled_from(["a", "b", "link", "file", "..", "."])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(PART, min_size=1, max_size=6))
def test_property_output_dir_creates_nothing_outside_the_working_directory(tmp_path, parts):
    """Any path typed from names, a link to outside, a file and ``..``: refused (InputError), or a real
    directory whose every component as typed is not a link; never a write beside the link's target."""
    case = Path(os.path.realpath(tmp_path)) / f"c{len(list(tmp_path.iterdir()))}"
    (case / "outside").mkdir(parents=True)
    work = case / "in" / "work"
    work.mkdir(parents=True)
    (work / "link").symlink_to(case / "outside")
    (work / "file").write_text("x")
    typed = "/".join(parts)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        made = output_dir(typed)
    except InputError as exc:
        assert typed in str(exc) or "symbolic link" in str(exc) or "in the way" in str(exc)
        made = None
    finally:
        os.chdir(cwd)
    assert list((case / "outside").iterdir()) == []
    if made is not None:
        full = work / made
        assert full.is_dir()
        walked = work
        for part in made.parts:
            walked = walked / part
            assert part == ".." or not stat.S_ISLNK(os.lstat(walked).st_mode)


def test_a_directory_another_process_creates_meanwhile_is_used(tmp_path, monkeypatch):
    """Two ranks create the same dump directory at once: the loser's mkdir finds it made, and goes on."""
    real_mkdir = os.mkdir

    def racing_mkdir(name, mode=0o777, *, dir_fd=None):
        real_mkdir(name, mode, dir_fd=dir_fd)
        raise FileExistsError(17, "File exists")

    monkeypatch.setattr(os, "mkdir", racing_mkdir)
    assert output_dir(tmp_path / "dumps" / "job").is_dir()


def test_nan_dumps_never_write_through_a_link_planted_at_their_name(tmp_path):
    """`trace --dump-dir DIR` where DIR/dump.pt links to a file of the user's: torch.save(path) truncated it."""
    import torch

    from faultlib.detect.numerics.nan_locator import write_dump as locator_dump
    from faultlib.outputs import open_new
    from faultlib.trace.batch import write_dump as trace_dump

    precious = tmp_path / "precious"
    precious.write_text("keep")
    (tmp_path / "dump.pt").symlink_to(precious)
    for write in (lambda p: locator_dump(p, step=1, event=None, batch=torch.ones(2), loss=torch.tensor(1.0),
                                         model_state={}, optimizer_state=None),
                  lambda p: trace_dump(p, step=1, event=None, inputs=None, loss=torch.tensor(1.0), model_state={},
                                       optimizer_state=None)):
        with pytest.raises(OSError):
            write(str(tmp_path / "dump.pt"))
        assert precious.read_text() == "keep"
    with open_new(tmp_path / "new.pt") as fh:
        fh.write(b"x")
    assert (tmp_path / "new.pt").read_bytes() == b"x"


def test_trace_default_dump_dir_under_a_linked_faultlib_folder_is_refused_before_the_script_runs(elsewhere):
    target, work = elsewhere
    (work / ".faultlib").symlink_to(target)
    (work / "s.py").write_text("print('ran')\n")
    proc = cli("trace", "--", sys.executable, "s.py", cwd=work, timeout=120)
    assert proc.returncode == 2 and ".faultlib is a symbolic link" in proc.stderr and "ran" not in proc.stdout
    assert _everything(target) == []


def test_trace_world_rank_files_replace_a_planted_link_never_write_through_it(tmp_path):
    from faultlib.trace.world import _write_rank_files

    precious = tmp_path / "precious"
    precious.write_text("keep")
    (tmp_path / "rank0.json").symlink_to(precious)
    _write_rank_files(tmp_path, {0: {"rank": 0}, 1: {"rank": 1}})
    assert precious.read_text() == "keep" and json.loads((tmp_path / "rank0.json").read_text()) == {"rank": 0}
