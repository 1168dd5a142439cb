"""An assert's message in the suite and the cases' assertion suites is a string, never a tuple, list, dict or set.

pytest prints a message that is not a string through ``saferepr``, which shortens it to 240 characters by
cutting out the middle: ``(failures, log)`` lost "cannot do without the control" that a
``pytest.raises(match=...)`` looked for (stop 34's CI), and ``(record["assertions"], record["error"])`` would
lose the failed assertions between the passed and the skipped ones, what a reader of a CI log needs. A string
is printed whole. This test catches the displays (``(a, b)``, ``[...]``, ``{...}`` and comprehensions); a
name bound to a dict or list is the same mistake, which only a reader can see (``f"{record}"``, not
``record``).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DISPLAYS = (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)


def display_messages(source: str, name: str) -> list[str]:
    """``name:line`` of every assert in ``source`` whose message is a tuple, list, dict or set display."""
    return [f"{name}:{node.lineno}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Assert) and isinstance(node.msg, DISPLAYS)]


def test_the_check_sees_a_tuple_a_list_and_a_comprehension_and_passes_strings():
    source = ("assert a, (b, c)\nassert a, [f.message for f in d]\nassert a, {'k': v}\n"
              "assert a, f'{b}; {c}'\nassert a, 'plain'\nassert a, b\nassert a\n")
    assert display_messages(source, "x.py") == ["x.py:1", "x.py:2", "x.py:3"]


def test_no_assert_message_in_the_tests_or_the_cases_is_a_display():
    found = []
    for root in (REPO / "tests", REPO / "cases"):
        for path in sorted(root.rglob("*.py")):
            found += display_messages(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    assert found == [], "messages pytest would shorten from the middle (write an f-string): " + ", ".join(found)
