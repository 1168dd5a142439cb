"""An error repeats at most ECHO_LIMIT characters of an input (stop 35, users' low item): one helper, used where the
CLI prints every error; a path the system refuses as too long is exit 2, not a traceback."""

from __future__ import annotations


from faultlib.text import ECHO_LIMIT, echoed, shorten_echoes
from tests.conftest import cli

HUGE = "9" * 5000


def test_a_long_input_is_cut_in_the_middle_with_its_length():
    shown = echoed("'" + HUGE + "Gi'")
    assert shown.startswith("'99") and "…" in shown and shown.endswith("9Gi' (5,002 characters)")
    assert len(shown) < ECHO_LIMIT + 40
    assert echoed("'1Gi'") == "'1Gi'"


def test_a_message_keeps_its_words_and_cuts_only_the_long_input():
    message = f"--volume-size '{HUGE}' is not a positive Kubernetes quantity: write it like 1Gi"
    short = shorten_echoes(message)
    assert short.startswith("--volume-size '99") and short.endswith("is not a positive Kubernetes quantity: write "
                                                                     "it like 1Gi")
    assert len(short) < 250
    ordinary = "cases/x/case.yaml:3: repro.timeout_s: must be at most 86400"
    assert shorten_echoes(ordinary) == ordinary


def test_the_cli_caps_what_its_errors_repeat(tmp_path):
    for args in (("run", "cases/none", "--seed", HUGE), ("run", "cases/none", "--backend", "k" + HUGE),
                 ("new", "x" + HUGE)):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2 and len(proc.stderr) < 1000, f"{args[:2]}: {proc.stderr[-300:]}"
        assert "(5,00" in proc.stderr and "characters)" in proc.stderr


def test_a_path_too_long_for_the_system_is_bad_input_not_a_traceback(tmp_path):
    for args in (("check", "blocking", "x" + HUGE), ("list", "x" + HUGE), ("validate", "x" + HUGE)):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, f"{args[:2]}: {proc.stderr[-300:]}"
        assert "Traceback" not in proc.stderr and "longer than this system takes" in proc.stderr
        assert len(proc.stderr) < 1000
    proc = cli("check", "blocking", "x" + HUGE, "--json", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
