"""Bad input through the CLI: exit 2 with file, line and field, in bounded time; user text never markup."""

from __future__ import annotations

import time

import pytest
import yaml

from tests.conftest import cli, cli_in_process, run_json, tiny_case_data, write_case

BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n" for p, c in zip("abcdefgh", "bcdefghi"))


def _case_with(tmp_path, text: str):
    case_dir = write_case(tmp_path / "cases", tiny_case_data())
    (case_dir / "case.yaml").write_text(text)
    return case_dir


def test_validate_refuses_an_alias_bomb_fast(tmp_path):
    case_dir = _case_with(tmp_path, BOMB)
    started = time.perf_counter()
    proc = cli("validate", str(case_dir), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and "alias" in proc.stderr and "case.yaml:" in proc.stderr
    assert time.perf_counter() - started < 30
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("mutate,line_of,phrase", [
    (lambda t: t.replace("timeout_s: 60", "timeout_s: .nan"), "timeout_s", "non-finite"),
    (lambda t: t.replace("timeout_s: 60", "timeout_s: .inf"), "timeout_s", "non-finite"),
    (lambda t: t.replace("steps: 5", "steps: 5\n    when: 2020-01-01"), "when", "timestamp"),
    (lambda t: t.replace("steps: 5", "steps: 5\n    1: one"), "1: one", "not a string"),
    (lambda t: t.replace("steps: 5", "steps: 5\n    true: yes"), "true: yes", "not a string"),
    (lambda t: t.replace("steps: 5", "steps: 5\n    ~: nothing"), "~: nothing", "not a string"),
    (lambda t: t.replace("seed: 3", "seed: &s [*s]"), "seed", "recursive alias"),
    (lambda t: t.replace("title: ", "title: \x00"), "title", "NUL byte"),
    (lambda t: t.replace("title: ", "title: \x07"), "title", "U+0007"),
])
def test_odd_yaml_values_give_exit_2_with_the_line(tmp_path, mutate, line_of, phrase):
    text = yaml.safe_dump(tiny_case_data(), sort_keys=False)
    bad = mutate(text)
    assert bad != text
    case_dir = _case_with(tmp_path, bad)
    expected_line = next(i for i, line in enumerate(bad.splitlines(), 1) if line_of in line)
    for command in (("validate", str(case_dir)), ("run", str(case_dir)), ("list", str(case_dir.parent))):
        proc = cli_in_process(*command, cwd=tmp_path)  # what the commands answer: in process (a Python exception fails)
        assert proc.returncode == 2, f"{command}; {proc.stdout}; {proc.stderr}"
        assert f"case.yaml:{expected_line}:" in proc.stderr and phrase in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / ".faultlib").exists()  # nothing written for a case that does not validate


@pytest.mark.parametrize("flag,value", [("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "1e400"),
                                        ("--timeout", "-1"), ("--timeout", "100000"), ("--seed", "-1"),
                                        ("--seed", str(2**64))])
def test_numbers_in_flags_must_be_finite_and_in_range(tmp_path, tiny_case, flag, value):
    proc = cli_in_process("run", str(tiny_case()), flag, value, cwd=tmp_path)
    assert proc.returncode == 2 and flag in proc.stderr
    assert not (tmp_path / ".faultlib").exists()


HOSTILE_TITLE = "tiny [/] [bold red]not markup[/bold red] [link=file:///etc/passwd]x[/link] [/"


def test_titles_and_messages_are_never_rich_markup(tmp_path):
    data = tiny_case_data()
    data["title"] = HOSTILE_TITLE
    case_dir = write_case(tmp_path / "cases", data)
    listed = cli("list", str(case_dir.parent), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "[/]" in listed.stdout and "[bold red]not markup[/bold red]" in listed.stdout
    ran = cli("run", str(case_dir), cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert HOSTILE_TITLE in ran.stderr and "Traceback" not in ran.stderr
    as_json = cli("list", str(case_dir.parent), "--json", cwd=tmp_path)
    assert run_json(as_json)["cases"][0]["title"] == HOSTILE_TITLE


def test_symlinked_suite_leaving_the_case_fails_validate(tmp_path):
    case_dir = write_case(tmp_path / "cases", tiny_case_data())
    outside = tmp_path / "elsewhere.py"
    (case_dir / "test_case.py").rename(outside)
    (case_dir / "test_case.py").symlink_to(outside)
    proc = cli("validate", str(case_dir), cwd=tmp_path)
    assert proc.returncode == 2 and "symbolic link" in proc.stderr


def test_list_of_a_folder_without_cases_says_so_like_regress(tmp_path):
    """`faultlib list FOLDER` on a folder holding no case directory (the wrong folder, most likely) printed an
    empty table and exited 0; regress and dashboards already refused it. Now all say the same (exit 2); a filter
    that matches nothing in a real catalog is still an empty answer."""
    (tmp_path / "notes").mkdir()
    for command in (("list",), ("list", "--json"), ("regress",)):
        got = cli(*command, str(tmp_path / "notes"), cwd=tmp_path)
        assert got.returncode == 2, f"{command}; {got.stdout}; {got.stderr}"
        assert "no case directories" in got.stdout + got.stderr, command
    write_case(tmp_path / "cases", tiny_case_data("good_case"))
    got = cli("list", str(tmp_path / "cases"), "--fault-class", "nothing.", "--json", cwd=tmp_path)
    assert got.returncode == 0 and run_json(got)["cases"] == [], got.stderr
