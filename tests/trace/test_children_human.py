"""`faultlib trace`'s human report names a child that did not end well (its exit code), not only `--json`'s
`children`: a launcher whose worker failed must not read as a clean run."""

from __future__ import annotations

import json
import textwrap

from tests.conftest import cli

LAUNCHER = textwrap.dedent('''
    import subprocess, sys, time
    good = subprocess.Popen([sys.executable, "-c", "pass"])
    bad = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
    good.wait()
    time.sleep(0.5)
    bad.poll()
''')


def test_a_child_that_failed_is_named_with_its_exit_code_and_a_clean_one_is_not(tmp_path):
    (tmp_path / "launch.py").write_text(LAUNCHER)
    proc = cli("trace", "--out", "report.json", "--", "python", "launch.py", cwd=tmp_path)
    children = json.loads((tmp_path / "report.json").read_text())["children"]
    assert sorted(c["exit_code"] for c in children) == [0, 3], children
    failed = [line for line in proc.stderr.splitlines() if line.startswith("child pid")]
    assert len(failed) == 1 and "exit code 3" in failed[0] and "sys.exit(3)" in failed[0], proc.stderr
