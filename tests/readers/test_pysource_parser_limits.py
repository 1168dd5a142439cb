"""A statement deeper than CPython's tokenizer goes (200 open brackets, 100 indented blocks) is valid Python the
parser cannot read: bad input (exit 2) that names its line, for every static check alike. ``check leakage``
skips a statement that is not valid Python and analyses the rest; it once skipped a too-deep statement the same
way and said ``ok`` (exit 0) about a file ``check blocking`` refused."""

from __future__ import annotations

import pytest

from faultlib.errors import InputError
from faultlib.readers.pysource import parse_python
from tests.check.test_fuzz_checks import run_check

HEAD = "import pandas as pd\nrows = pd.read_csv('rows.csv')\n"
TAIL = "n = len(rows)\nprint(n)\nlast = n + 1\n"
DEEP = {
    "brackets": HEAD + "weights = " + "[" * 240 + "0.5" + "]" * 240 + "\n" + TAIL,
    "blocks": HEAD + "".join("    " * i + "if n:\n" for i in range(101)) + "    " * 101 + "n = 0\n" + TAIL,
}


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_too_deep_statement_inside_a_longer_file_is_bad_input_for_every_static_check(tmp_path, shape):
    script = tmp_path / "prep.py"
    script.write_text(DEEP[shape])
    messages = set()
    for check in ("leakage", "blocking", "resume"):
        code, out = run_check(check, str(script), "--alone") if check == "leakage" else run_check(check, str(script))
        assert code == 2, f"{check}: {out}"
        assert "nested too deeply for the parser" in out["message"] and "split it" in out["message"], out
        messages.add(out["message"])
    assert len(messages) == 1, messages


def test_the_same_statements_at_a_depth_the_parser_reads_still_parse():
    shallow = HEAD + "weights = " + "[" * 150 + "0.5" + "]" * 150 + "\n" + "".join(
        "    " * i + "if n:\n" for i in range(90)) + "    " * 90 + "n = 0\n" + TAIL
    assert parse_python(shallow, "prep.py").body


def test_the_limit_is_named_with_its_line_even_for_a_caller_that_keeps_syntax_errors():
    with pytest.raises(InputError) as raised:
        parse_python(DEEP["brackets"], "prep.py", keep_syntax_errors=True)
    assert raised.value.line == 3 and "too many nested parentheses" in raised.value.message
    with pytest.raises(SyntaxError):  # a real syntax error still reaches the tolerant caller
        parse_python(HEAD + "x = = 2\n", "prep.py", keep_syntax_errors=True)
