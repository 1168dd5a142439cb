"""What the processes of a run import. The runner starts a case's assertion suite (pytest, with
:mod:`faultlib.cases.fixture`) in its own process: the process that runs ``faultlib run`` imports no pytest
(the names both sides share are in :mod:`faultlib.cases.suite_env`), and the plugin still exposes them. A
repro only records evidence: ``faultlib.repro`` imports neither the evidence reader (nor the YAML reader with
it) nor jsonschema (only a phase with faults validates their parameters)."""

from __future__ import annotations

import subprocess
import sys


def test_the_runner_imports_no_pytest():
    probe = "import sys, faultlib.runner; print(sorted(m for m in ('pytest', '_pytest') if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_the_suite_plugin_and_the_runner_share_the_environment_names():
    from faultlib.cases import fixture, suite_env

    names = ("ENV_EVIDENCE", "ENV_PHASES", "ENV_SKIP", "NO_CONTROL", "CONTROL_USE")
    assert [getattr(fixture, n) for n in names] == [getattr(suite_env, n) for n in names]
    assert suite_env.ENV_EVIDENCE == "FAULTLIB_EVIDENCE_DIR" and suite_env.CONTROL_USE == "faultlib.control"


def test_a_repro_imports_no_evidence_reader_yaml_or_jsonschema():
    probe = ("import sys, faultlib.repro; print(sorted(m for m in ('faultlib.evidence.reader', 'yaml', 'jsonschema') "
             "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr
    from faultlib.evidence import RunEvidence, read_run  # the door still names the reader's classes

    assert RunEvidence.__module__ == "faultlib.evidence.reader" and callable(read_run)
