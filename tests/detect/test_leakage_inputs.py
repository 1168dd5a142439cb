"""check leakage on one script that fits, splits or scores data it never assigns: an ``info`` note names the
variables (and the siblings that could not be read), so "ok" does not read as "the rows were clean before".
Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.data.leakage import analyze_file

MODEL = """
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split
    tr_x, te_x, tr_y, te_y = train_test_split(features, target, random_state=0)
    print(Ridge().fit(tr_x, tr_y).score(te_x, te_y))
"""


def notes(report):
    return [f for f in report.findings if f.kind == "inputs_not_assigned"]


def test_data_no_readable_sibling_assigns_is_named_with_the_unreadable_sibling(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL))
    (tmp_path / "prepare.py").write_bytes(b"features = 1\n\xff\xfe target = 2\n")  # not UTF-8
    report, _ = analyze_file(str(tmp_path / "model.py"))
    [note] = notes(report)
    assert note.severity.value == "info"
    assert note.evidence == {"variables": ["features", "target"], "unreadable_siblings": ["prepare.py"]}
    assert "`features`, `target`" in note.message and "prepare.py" in note.message


def test_alone_names_the_variables_too(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL))
    report, _ = analyze_file(str(tmp_path / "model.py"), alone=True)
    assert [n.evidence["variables"] for n in notes(report)] == [["features", "target"]]
    assert "--alone" in notes(report)[0].message


def test_a_script_that_assigns_its_data_or_is_joined_with_its_sibling_has_no_note(tmp_path):
    (tmp_path / "model.py").write_text("import pandas as pd\nfeatures = pd.read_csv('f.csv')\ntarget = features.pop('t')\n"
                                       + textwrap.dedent(MODEL))
    assert notes(analyze_file(str(tmp_path / "model.py"))[0]) == []
    other = tmp_path / "joined"
    other.mkdir()
    (other / "model.py").write_text(textwrap.dedent(MODEL))
    (other / "prepare.py").write_text("import pandas as pd\nframe = pd.read_csv('f.csv')\n"
                                      "features, target = frame.drop(columns='t'), frame['t']\n")
    assert notes(analyze_file(str(other / "model.py"))[0]) == []


def test_a_missing_constant_that_is_not_data_is_no_note(tmp_path):
    (tmp_path / "plot.py").write_text("import matplotlib.pyplot as plt\nplt.figure(figsize=(width, 4))\n")
    assert notes(analyze_file(str(tmp_path / "plot.py"))[0]) == []
