"""The suite passes from any clone: a copy of this checkout in a folder named ``faultlib``, with the user's own
``.faultlib/runs`` holding a run that errored and ``/tmp/cases`` already taken, runs the path- and
state-sensitive tests green.

What each selected test would trip on if it were not hermetic:

- ``validate`` of the catalog reads ``.faultlib/runs`` of its working directory by default (the user's runs);
- ``trace`` tests look for faultlib's own code in a traceback (a ``/faultlib/`` substring is in every path of
  a clone named ``faultlib``);
- the README's ``faultlib new ... --out /tmp/cases`` example refuses an existing directory;
- the documented imports run from the checkout's root.

The copy is made from ``git ls-files`` (what a clone holds, plus files not yet committed); a symbolic link is copied as a link.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED, run_json

SENSITIVE = [
    "tests/cli/test_cli.py::test_validate_catalog_and_list",
    "tests/traces/test_new_cli.py::test_the_readme_example_trace_runs_as_documented",
    "tests/trace/test_outcomes.py::test_script_traceback_and_exit_message_are_printed_as_python_would",
    "tests/test_readme.py::test_every_documented_import_works",
    "tests/test_hermetic.py::test_the_copy_is_a_clone_named_faultlib_with_the_users_state",
]
TMP_CASES = Path("/tmp/cases")  # the README example's output folder: a user trying it may hold it


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"not a git checkout (git ls-files: {exc}): nothing to clone")
    return [name for name in out.decode().split("\0") if name]


def _copy_checkout(dest: Path) -> None:
    for name in _tracked():
        source, target = REPO / name, dest / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree, not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)


def test_the_copy_is_a_clone_named_faultlib_with_the_users_state():
    """Run inside the copy (by the test below): the checkout's folder is named faultlib and holds the state."""
    if os.environ.get("FAULTLIB_HERMETIC_COPY") != "1":
        pytest.skip("runs only inside the copy made by test_path_and_state_sensitive_tests_pass_in_a_clone")
    assert REPO.name == "faultlib" and TMP_CASES.is_dir()
    assert any((REPO / ".faultlib" / "runs" / "fp16_overflow").iterdir())


def test_path_and_state_sensitive_tests_pass_in_a_clone_named_faultlib(tmp_path):
    pytest.importorskip("torch")
    clone = tmp_path / "faultlib"
    _copy_checkout(clone)
    if SHARED.is_dir():
        (tmp_path / "shared").symlink_to(SHARED)
    env = {**os.environ, "COLUMNS": "200", "FAULTLIB_HERMETIC_COPY": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    crashed = subprocess.run([sys.executable, "-m", "faultlib", "run", "cases/fp16_overflow", "--no-control",
                              "--timeout", "1", "--json"], cwd=clone, env=env, capture_output=True, text=True,
                             timeout=120)
    assert run_json(crashed)["verdict"] == "error", crashed.stderr[-2000:]  # the user's own errored run
    made = not TMP_CASES.exists()
    if made:
        TMP_CASES.mkdir()
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", "-rs",
                               *SENSITIVE], cwd=clone, env=env, capture_output=True, text=True, timeout=900)  # a busy runner: minutes
    finally:
        if made:
            shutil.rmtree(TMP_CASES, ignore_errors=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"{len(SENSITIVE)} passed" in proc.stdout, proc.stdout[-3000:]
    assert not (clone / ".faultlib" / "runs" / "inventory_delay").exists()  # nothing wrote into the user's state
