"""Every README command that needs no Docker engine, cluster, S3 store or full case run runs as written.

Commands come from the README's ```bash blocks; ``/tmp/`` is moved into the test's temp directory so
the suite writes nothing outside it. A `faultlib check` example exits 1 (it shows findings) unless
its comment says `# exit 0` (so does `faultlib trace`); everything else exits 0; nothing prints a traceback.
One test per command (a command reading what an earlier one wrote runs after it, in the same test), so xdist
spreads them; the few commands a stronger test elsewhere runs from the README (RUN_ELSEWHERE) run there only.
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

# README commands another test runs (as written, plus --json, through :func:`readme_argv`) and asserts more on:
# run there, not twice. test_commands_run_elsewhere_are_run_there keeps each entry honest.
RUN_ELSEWHERE = {
    "python cases/onnx_op_compat/examples/make_model.py": "tests/check/test_check_onnx.py",
    "faultlib check onnx": "tests/check/test_check_onnx.py",
    "faultlib trace --asyncio": "tests/trace/test_asyncio.py",
    "faultlib new inventory_delay": "tests/traces/test_new_cli.py",
    "faultlib validate /tmp/cases/inventory_delay": "tests/traces/test_new_cli.py",
}


def _run_elsewhere(line: str) -> bool:
    return line.startswith(tuple(RUN_ELSEWHERE))


def _groups() -> list[list[str]]:
    """The commands in README order, one group per command, except that a command naming a ``/tmp/`` path
    an earlier command wrote joins that command's group (make_checkpoints.py then the checks of its files):
    groups are independent of each other, so xdist can spread them."""
    groups: dict[str, list[str]] = {}
    for line in COMMANDS:
        if _run_elsewhere(line):
            continue
        tmp = re.search(r"/tmp/([^/\s.]+)", line)
        groups.setdefault(tmp.group(1) if tmp else line, []).append(line)
    return list(groups.values())


GROUPS = _groups()


def readme_argv(prefix: str, tmp_path, *flags: str) -> list[str]:
    """The one README command starting with ``prefix``, split as a shell would, ``/tmp/`` moved into ``tmp_path``
    and ``flags`` added before its ``--`` (or at its end); ``faultlib`` stays the first word: run the rest with
    :func:`tests.conftest.cli`, a ``python`` one with ``sys.executable``."""
    (line,) = [c for c in COMMANDS if c.startswith(prefix)]
    argv = [a.replace("/tmp/", f"{tmp_path}/") for a in shlex.split(line, comments=True)]
    at = argv.index("--") if "--" in argv else len(argv)
    return argv[:at] + list(flags) + argv[at:]


def test_the_readme_has_cheap_commands_to_run():
    assert any(c.startswith("faultlib check ") for c in COMMANDS) and len(COMMANDS) >= 10


def test_commands_run_elsewhere_are_run_there():
    """Every README command is run by some test: here (GROUPS) or by a test of the file RUN_ELSEWHERE names,
    which takes it from the README through readme_argv (so a changed README command is what that test runs)."""
    assert sorted(line for group in GROUPS for line in group) == sorted(c for c in COMMANDS if not _run_elsewhere(c))
    for prefix, test_file in RUN_ELSEWHERE.items():
        assert sum(c.startswith(prefix) for c in COMMANDS) == 1, prefix  # still in the README, once
        assert f'readme_argv("{prefix}"' in (REPO / test_file).read_text(), f"{prefix}; {test_file}"


def _group_id(group: list[str]) -> str:
    """The README position of the group's first command and its first words: ``11 faultlib check state-dict``."""
    return f"{COMMANDS.index(group[0]):02d} {' '.join(group[0].split()[:3])[:40]}"


@pytest.mark.parametrize("group", GROUPS, ids=[_group_id(g) for g in GROUPS])
def test_readme_commands_run_as_written(group, tmp_path):
    if any("shared/" in line for line in group) and not SHARED.is_dir():
        pytest.skip(f"the README command names the shared folder {SHARED}")
    pytest.importorskip("torch")
    before = sorted(os.listdir(REPO))
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "COLUMNS": "200"}
    for line in group:
        finds = line.startswith(("faultlib check ", "faultlib trace "))  # exit 1: they show what they found
        expected = 0 if (not finds or re.search(r"#\s*exit 0", line) or "--list-kinds" in line) else 1
        argv = [a.replace("/tmp/", f"{tmp_path}/") for a in shlex.split(line, comments=True)]
        if argv[0] == "python":
            argv[0] = sys.executable
        proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == expected, f"{line}; {proc.returncode}; {proc.stdout[-1500:]}; {proc.stderr[-1500:]}"
        assert "Traceback" not in proc.stderr, f"{line}; {proc.stderr[-1500:]}"
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
    assert proc.returncode == 0, f"{code}; {proc.stderr[-2000:]}"
