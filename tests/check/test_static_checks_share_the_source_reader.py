"""Every static check reads a user's Python through :func:`faultlib.readers.pysource.parse_python`: source nested
past the parser is the same plain bad input (exit 2) for ``check leakage``, ``check blocking`` and ``check
resume``, and a tree the parser built but too deep for the analysis is an incomplete analysis, never a traceback."""

from __future__ import annotations

import pytest

from tests.check.test_fuzz_checks import run_check

CHECKS = ["leakage", "blocking", "resume"]
DEEP = {
    "chained_plus": "total = 1" + " + 1" * 20000 + "\n",  # was "RecursionError: maximum recursion depth exceeded"
    "parentheses": "total = " + "(" * 10000 + "1" + ")" * 10000 + "\n",
}


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_source_gives_every_static_check_the_same_plain_words(tmp_path, shape):
    script = tmp_path / "deep.py"
    script.write_text(DEEP[shape])  # the whole file: nothing else for check leakage to read instead
    messages = set()
    for check in CHECKS:
        code, out = run_check(check, str(script))
        assert code == 2, f"{check}: {out}"
        assert "RecursionError" not in out["message"] and "maximum recursion" not in out["message"], f"{check}: {out}"
        messages.add(out["message"])
    assert len(messages) == 1, messages


def test_leakage_still_skips_a_statement_that_does_not_parse_and_reads_the_rest(tmp_path):
    script = tmp_path / "mixed.py"
    script.write_text("import pandas as pd\nrows = pd.read_csv('rows.csv')\nx = = 2\n"
                      "n = len(rows)\n")
    code, out = run_check("leakage", str(script))
    assert code == 0
    assert [f["kind"] for f in out["findings"]].count("code_not_parsed") == 1


def test_recursion_in_the_analysis_of_a_parsed_tree_is_an_incomplete_analysis(tmp_path, monkeypatch):
    """The interpreter stops by itself on deep code; the analyser's set-up walks (here: finding the bindings) do
    not, so a RecursionError there once read "cannot be parsed as Python" (exit 2) for a file that parses."""
    import faultlib.detect.data.leakage.static as static

    def too_deep(tree):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(static, "bindings", too_deep)
    script = tmp_path / "fit.py"
    script.write_text("import pandas as pd\nrows = pd.read_csv('rows.csv')\nn = len(rows)\n")
    code, out = run_check("leakage", str(script))
    assert code != 2, out
    incomplete = [f for f in out["findings"] if f["kind"] == "analysis_incomplete"]
    assert incomplete and "nested too deeply" in incomplete[0]["message"], out["findings"]
    assert out["complete"] is False, out
