"""The repro cannot read the archive's credentials from any process it can see.

The runner gets the keys in its environment; before anything runs it moves them out of its
environment block (re-exec through a pipe, faultlib.archive.credentials), so /proc/<runner>/environ
no longer holds them. The repro here scans every /proc/*/environ and /proc/*/cmdline it can read.
"""

from __future__ import annotations

from tests.conftest import run_json, tiny_case_data, write_case

SCANNING_REPRO = '''
import os
from pathlib import Path
from faultlib import repro

secret = SECRET_VALUE.encode()  # written into this file by the test: no process environment holds it but the runner's
assert b"AWS_SECRET_ACCESS_KEY" not in open("/proc/self/environ", "rb").read()
with repro.context() as ctx:
    seen, leaks = 0, []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        for name in ("environ", "cmdline"):
            try:
                data = (proc / name).read_bytes()
            except OSError:
                continue
            seen += 1
            if secret in data:
                leaks.append(f"{proc.name}/{name}")
    try:
        parent = Path(f"/proc/{os.getppid()}/environ").read_bytes()
    except PermissionError:
        parent = None  # not even readable: protected
    assert parent is None or secret not in parent, "the runner's environment block holds the secret"
    assert seen > 10, f"scanned only {seen} files: the probe did not look"
    assert not leaks, f"secret readable in {leaks}"
    for step in range(5):  # what the tiny case's assertion suite checks
        with ctx.step(step, total=5) as span:
            span.set(value=step * 2)
    ctx.summary(scanned=seen)
'''


def test_repro_finds_the_archive_secret_in_no_process(tmp_path):
    import os
    import subprocess
    import sys

    secret = "s3cr3t-" + os.urandom(8).hex()
    case_dir = write_case(tmp_path / "cases", tiny_case_data("secret_probe"),
                          repro=f"SECRET_VALUE = {secret!r}\n" + SCANNING_REPRO)
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "probe-key", "AWS_SECRET_ACCESS_KEY": secret}
    proc = subprocess.run([sys.executable, "-m", "faultlib", "run", str(case_dir), "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    record = run_json(proc)
    stderr_txt = (tmp_path / ".faultlib" / "runs" / "secret_probe" / record["run_id"] / "stderr.txt").read_text()
    assert record["verdict"] == "passed", stderr_txt[-2000:]
    assert secret not in stderr_txt and secret not in proc.stdout + proc.stderr
