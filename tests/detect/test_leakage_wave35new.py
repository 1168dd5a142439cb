"""The static leakage analysis on the kinds wave 35new of public code showed (issue 17, stop 35), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.renamed import renamed_module
from faultlib.detect.data.leakage.session import session_members
from faultlib.findings import Severity

# a helper module of a book chapter: it reads a series and cuts the last windows off as the test set
HELPER = """\
import numpy as np
import pandas as pd

HORIZON = 4

def load_series():
    return pd.read_csv("load.csv")["kw"].values.reshape(-1, 1)

def windows(series, width, last):
    xs, ys = [], []
    for i in range(width, len(series)):
        xs.append(series[i - width:i, 0])
        ys.append(series[i, 0])
    return xs[:-last], xs[-last:], ys[:-last], ys[-last:]
"""

# the chapter's script, written when the book's code lived in a package named ``unit5``
SCRIPT = """\
import numpy as np
from sklearn.preprocessing import MinMaxScaler
from sklearn.linear_model import Ridge
from {module} import load_series, windows

series = load_series()
{fit}
a, b, ya, yb = windows(scaled, 6, 50)
{after}
model = Ridge().fit(a, ya)
print(model.score(b, yb))
"""

LEAKY_FIT = "mm = MinMaxScaler()\nscaled = mm.fit_transform(series)"


def _book(tmp_path: Path, module: str, script_dir: str, helper_rel: str, fit: str, after: str = "") -> Path:
    helper = tmp_path / helper_rel
    helper.parent.mkdir(parents=True, exist_ok=True)
    helper.write_text(HELPER)
    script = tmp_path / script_dir / "lesson.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(textwrap.dedent(SCRIPT.format(module=module, fit=fit, after=after)))
    return script


def _alarms(path: Path) -> list[tuple[str, str, int]]:
    report, _ = analyze_file(str(path))
    return [(f.kind, Path(f.location.get("file", "")).name, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING]


def test_scaler_over_the_series_split_in_a_helper_imported_under_the_old_package_name(tmp_path):
    script = _book(tmp_path, "unit5.seq_helpers", "Unit 05", "Unit 05/seq_helpers.py", LEAKY_FIT)
    assert ("fit_before_split", "lesson.py", 8) in _alarms(script)


def test_a_deeper_renamed_package_resolves_to_the_folder_above(tmp_path):
    script = _book(tmp_path, "unit5.tuning.seq_helpers", "Unit 05/tuning", "Unit 05/tuning/seq_helpers.py",
                   LEAKY_FIT)
    assert session_members(script)[0] == tmp_path / "Unit 05/tuning/seq_helpers.py"
    assert ("fit_before_split", "lesson.py", 8) in _alarms(script)


def test_scaler_fitted_on_the_training_windows_after_the_split_is_silent(tmp_path):
    script = _book(tmp_path, "unit5.seq_helpers", "Unit 05", "Unit 05/seq_helpers.py", "scaled = series",
                   after="mm = MinMaxScaler().fit(a)")
    assert session_members(script)[0].name == "seq_helpers.py"  # joined, and still nothing to report
    assert _alarms(script) == []


def test_a_library_import_is_not_taken_for_a_sibling_of_the_same_last_name(tmp_path):
    (tmp_path / "preprocessing.py").write_text("def tidy(frame):\n    return frame.dropna()\n")
    script = tmp_path / "run.py"
    script.write_text("from sklearn.preprocessing import StandardScaler\nStandardScaler()\n")
    assert session_members(script) == [script]


def test_renamed_module_needs_every_imported_name_defined_there(tmp_path):
    (tmp_path / "prep.py").write_text("LIMIT = 3\n\ndef cut(rows):\n    return rows[:LIMIT]\n\nclass Box:\n    pass\n")
    node = ast.parse("from old.prep import cut, LIMIT, Box").body[0]
    assert renamed_module(node, tmp_path, lambda p: ast.parse(p.read_text())) == tmp_path / "prep.py"
    for text in ("from old.prep import cut, missing", "from old.prep import *", "from prep import cut",
                 "from .prep import cut"):
        assert renamed_module(ast.parse(text).body[0], tmp_path, lambda p: ast.parse(p.read_text())) is None
