"""The work `check leakage` shares between analyses in one process (a script's tree, the repository's index of what
each script writes and reads, the parse resumed after a fix) answers exactly what it answers done afresh, and never
from a file's old text. Every example is written for this test."""

from __future__ import annotations

import ast
import os
import textwrap

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.reparse import Reparser
from faultlib.detect.data.leakage.source import (
    SourceMap,
    _fix_until_parsed,
    parse_tolerant,
)
from faultlib.findings import Severity

MAKER = """\
    import pandas as pd
    from sklearn.preprocessing import StandardScaler

    plants = pd.read_csv("plants.csv")
    sizes = plants.drop(columns=["bloomed"])
    even = pd.DataFrame(StandardScaler().fit_transform(sizes), columns=sizes.columns)
    even["bloomed"] = plants["bloomed"]
    even.to_csv("plants_even.csv", index=False)
"""

USER = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    table = pd.read_csv("plants_even.csv")
    fit_part, kept_part = train_test_split(table, test_size=0.3, random_state=1)
    clf = LogisticRegression().fit(fit_part.drop(columns=["bloomed"]), fit_part["bloomed"])
    print(clf.score(kept_part.drop(columns=["bloomed"]), kept_part["bloomed"]))
"""


def _alarms(path):
    report, _ = analyze_file(str(path))
    return [(f.kind, f.location["line"]) for f in report.findings
            if f.severity >= Severity.WARNING and f.location.get("file") == str(path)]


def _same_stamp(path, text: str, stat: os.stat_result) -> None:
    """Write ``text`` (of the old size) and give the file back its old modification time: what a cache keyed on
    the file's size and time cannot see."""
    assert len(text.encode()) == stat.st_size
    path.write_text(text)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_reader_changed_between_two_analyses_is_read_again(tmp_path):
    (tmp_path / "README.md").write_text("plants\n")
    maker = tmp_path / "make.py"
    maker.write_text(textwrap.dedent(MAKER))
    user = tmp_path / "use.py"
    user.write_text(textwrap.dedent(USER))
    assert _alarms(maker) == [("fit_before_split", 6)]  # the reader splits what the maker scaled
    stat = user.stat()
    _same_stamp(user, textwrap.dedent(USER).replace("plants_even.csv", "plants_next.csv"), stat)
    assert _alarms(maker) == []  # it now reads another file: the index of writes and reads is built again
    _same_stamp(user, textwrap.dedent(USER), user.stat())
    assert _alarms(maker) == [("fit_before_split", 6)]


def test_a_script_changed_between_two_analyses_is_read_again(tmp_path):
    (tmp_path / "README.md").write_text("plants\n")
    maker = tmp_path / "make.py"
    maker.write_text(textwrap.dedent(MAKER))
    (tmp_path / "use.py").write_text(textwrap.dedent(USER))
    assert _alarms(maker) == [("fit_before_split", 6)]
    _same_stamp(maker, textwrap.dedent(MAKER).replace('"plants_even.csv"', '"plants_ev.csv"  '), maker.stat())
    assert _alarms(maker) == []  # its write no longer reaches the reader


def _both_ways(source: str, smap_of) -> tuple:
    """(tree dump, skips) of the loop parsing on from checkpoints and of the loop parsing the whole text each time."""
    out = []
    for resume in (True, False):
        lines, smap = source.split("\n"), smap_of()
        try:
            tree = _fix_until_parsed(lines, smap, 200, Reparser(lines, smap.file, resume=resume))
            out.append((ast.dump(tree, include_attributes=True), smap.skipped))
        except SyntaxError as exc:
            out.append((f"{exc.msg} {exc.lineno}", smap.skipped))
    return tuple(out)


OLD_SCRIPT = '''\
import sys
print "start"

@staticmethod
def shown(x):
    print "value", x
    return x
if len(sys.argv) > 1:
    print "args"
else:
    print "none"
try:
    print "try"
except ValueError:
    pass
text = """
print "inside a string"
"""
def broken(:
    pass
total = (1 +
2)
print total, \\
    "done"
class Holder:
    def run(self):
        print >>sys.stderr, "run"
'''


def test_parsing_on_from_checkpoints_answers_as_parsing_the_whole_text():
    first, second = _both_ways(OLD_SCRIPT, lambda: SourceMap("old.py"))
    assert first == second
    assert first[1] and first[1][0]["line"] == 19  # the fragment that does not parse is skipped, the prints kept
    tree = parse_tolerant(OLD_SCRIPT, SourceMap("old.py"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "print"]
    assert len(calls) == 6  # (``print >>f, x`` is valid Python 3: a shift)


def test_a_fix_above_a_checkpoint_drops_it():
    """A notebook's cell is skipped whole: its lines above the checkpoint set inside it are blanked too."""
    cells = [["print 'a'", "x = 1", "print 'b'", "y = ("], ["z = 2", "print 'c'"]]
    source = "\n".join(line for cell in cells for line in cell)

    def notebook() -> SourceMap:
        return SourceMap("n.ipynb", [(1, 1, 4), (2, 5, 2)])

    first, second = _both_ways(source, notebook)
    assert first == second and [s["index"] for s in first[1]] == [1]
    lines = source.split("\n")
    parser = Reparser(lines, "n.ipynb")
    lines[0] = "print('a')"
    parser.fixed(1)
    lines[2] = "print('b')"
    parser.fixed(3)
    assert parser.checkpoints == [0, 2]
    lines[:4] = ["", "", "", ""]
    parser.fixed(4)
    assert parser.checkpoints == [0]


def test_parsing_on_starts_after_the_statements_already_parsed(monkeypatch):
    """150 Python 2 prints: 150 fixes; the text is parsed from its first line only for the first two errors, a
    checkpoint's test and the final tree (each parse reads up to its first error, so the work is linear), where the
    whole text each time read about 75 times its length."""
    from faultlib.detect.data.leakage import reparse

    source = "\n".join(f'print "row", {i}' for i in range(150))
    from_top: list[str] = []
    real = reparse.parse_python

    def counting(text, path, **kw):
        if not text.startswith("\n"):
            from_top.append(text)
        return real(text, path, **kw)

    monkeypatch.setattr(reparse, "parse_python", counting)
    tree = parse_tolerant(source, SourceMap("many.py"))
    assert len(tree.body) == 150 and len(from_top) <= 4
