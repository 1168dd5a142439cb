"""Every README command that needs no Docker engine, cluster, S3 store or full case run runs as written.

Commands come from the README's ```bash blocks; ``/tmp/`` is moved into the test's temp directory so
the suite writes nothing outside it. A `faultlib check` example exits 1 (it shows findings) unless
its comment says `# exit 0` (so does `faultlib trace`); everything else exits 0; nothing prints a traceback.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from tests.conftest import REPO, SHARED

README = REPO / "README.md"
EXPENSIVE = ("$run", "s3://", "pip install", "python -m pytest", "docker", "--backend compose", " && ",
             "faultlib regress")  # regress runs whole cases: tests/regress covers it


def _commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    out = []
    for line in lines:
        if not (line.startswith("faultlib ") or line.startswith("python cases/")):
            continue
        if " [" in line or any(marker in line for marker in EXPENSIVE):
            continue  # a synopsis, or a command that needs a store, an engine, or a full case run
        if line.startswith("faultlib run ") and "--dry-run" not in line:
            continue  # full case runs are tested by tests/test_e2e_*.py
        out.append(line)
    return out


COMMANDS = _commands()


def test_the_readme_has_cheap_commands_to_run():
    assert any(c.startswith("faultlib check ") for c in COMMANDS) and len(COMMANDS) >= 10


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"README commands name the shared folder {SHARED}")
def test_readme_commands_run_as_written(tmp_path):
    pytest.importorskip("torch")
    before = sorted(os.listdir(REPO))
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "COLUMNS": "200"}
    for line in COMMANDS:
        finds = line.startswith(("faultlib check ", "faultlib trace "))  # exit 1: they show what they found
        expected = 0 if (not finds or re.search(r"#\s*exit 0", line) or "--list-kinds" in line) else 1
        argv = [a.replace("/tmp/", f"{tmp_path}/") for a in shlex.split(line, comments=True)]
        if argv[0] == "python":
            argv[0] = sys.executable
        proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == expected, (line, proc.returncode, proc.stdout[-1500:], proc.stderr[-1500:])
        assert "Traceback" not in proc.stderr, (line, proc.stderr[-1500:])
    assert sorted(os.listdir(REPO)) == before  # nothing written beside the checkout


def _documented_imports() -> list[str]:
    """Every ``from faultlib... import ...`` / ``import faultlib...`` line of a python block of the README and docs/."""
    out = []
    for page in [README, *sorted((REPO / "docs").glob("*.md"))]:
        for block in re.findall(r"```python\n(.*?)```", page.read_text(), re.S):
            out += [line.strip() for line in block.splitlines()
                    if re.match(r"\s*(from faultlib[\w.]* import |import faultlib)", line)]
    return sorted(set(out))


def test_every_documented_import_works():
    imports = _documented_imports()
    assert any("faultlib.detect" in line for line in imports)
    code = "\n".join(imports)
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (code, proc.stderr[-2000:])
