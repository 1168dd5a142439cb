"""Data flow across files (stop 50): a script that imports many modules of its own project.

A competition script imports one feature module per idea (dates, cards, e-mails, users, ...), calls a helper of
each on its train and test frames, then cross-validates the training frame. The session joined only its first
seven imported modules (:data:`~faultlib.detect.data.leakage.session.MAX_MEMBERS`); a helper of a module left out
returned unknown tables, so a statistic over every training row written by a helper called before it (a ratio
to the per-group mean) no longer reached the folds. Every example is written for this test (no public code).
"""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file, session
from faultlib.findings import Severity

#: one small module per idea, each helper taking and returning the train and test frames
PLAIN = """\
def add_{name}(train, test):
    train['{name}'] = train['amount'] * 2
    test['{name}'] = test['amount'] * 2
    return train, test
"""

#: the module whose helper divides a column by its per-shop mean over every training row
RATIOS = """\
def shop_ratios(train, test):
    train['amount_by_shop'] = train['amount'] / train.groupby('shop')['amount'].transform('mean')
    test['amount_by_shop'] = test['amount'] / test.groupby('shop')['amount'].transform('mean')
    return train, test
"""

#: the healthy look-alike: a ratio between two columns of the same row (no statistic over rows)
ROW_RATIOS = """\
def shop_ratios(train, test):
    train['amount_by_shop'] = train['amount'] / train['items']
    test['amount_by_shop'] = test['amount'] / test['items']
    return train, test
"""

NAMES = ["dates", "cards", "mails", "browsers", "devices", "regions", "hours", "users"]


def _script() -> str:
    imports = "".join(f"from feats.fe_{n} import add_{n}\n" for n in NAMES[:3])
    imports += "from feats.fe_ratios import shop_ratios\n"
    imports += "".join(f"from feats.fe_{n} import add_{n}\n" for n in NAMES[3:])
    calls = "".join(f"train, test = add_{n}(train, test)\n" for n in NAMES[:3])
    calls += "train, test = shop_ratios(train, test)\n"
    calls += "".join(f"train, test = add_{n}(train, test)\n" for n in NAMES[3:])
    return ("import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
            "from sklearn.model_selection import cross_val_score\n" + imports +
            "\ntrain = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n" + calls +
            "y = train.pop('label')\nprint(cross_val_score(LogisticRegression(), train, y, cv=5))\n")


def _project(root: Path, ratios: str) -> Path:
    (root / "feats").mkdir()
    (root / "feats" / "__init__.py").write_text("")
    for n in NAMES:
        (root / "feats" / f"fe_{n}.py").write_text(PLAIN.format(name=n))
    (root / "feats" / "fe_ratios.py").write_text(ratios)
    (root / "run.py").write_text(_script())
    return root / "run.py"


def _alarms(path: Path) -> set[tuple[str, str, int]]:
    report, _ = analyze_file(str(path))
    return {(f.kind, Path(f.location.get("file", "")).name, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


def test_every_module_the_script_imports_joins_past_the_old_bound(tmp_path: Path) -> None:
    script = _project(tmp_path, RATIOS)
    members = session.session_members(script)
    assert len(NAMES) + 1 > session.MAX_MEMBERS - 1  # the example needs more than the bound of a helper's helpers
    assert len(members) == len(NAMES) + 2 <= session.MAX_DIRECT
    assert members[-1] == script


def test_training_statistic_in_a_helper_reaches_the_folds(tmp_path: Path) -> None:
    found = _alarms(_project(tmp_path, RATIOS))
    assert ("fit_outside_cv", "fe_ratios.py", 2) in found


def test_row_ratio_in_a_helper_stays_silent(tmp_path: Path) -> None:
    found = _alarms(_project(tmp_path, ROW_RATIOS))
    assert not {a for a in found if a[1] == "fe_ratios.py"}


def test_a_module_past_the_session_bound_makes_the_report_incomplete(tmp_path: Path) -> None:
    many = [f"idea{i}" for i in range(session.MAX_DIRECT + 2)]
    (tmp_path / "feats").mkdir()
    (tmp_path / "feats" / "__init__.py").write_text("")
    for n in many:
        (tmp_path / "feats" / f"fe_{n}.py").write_text(PLAIN.format(name=n))
    script = tmp_path / "run.py"
    script.write_text("import pandas as pd\n" + "".join(f"from feats.fe_{n} import add_{n}\n" for n in many) +
                      "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n" +
                      "".join(f"train, test = add_{n}(train, test)\n" for n in many))
    report, _ = analyze_file(str(script))
    assert not report.complete
    cut = [f for f in report.findings if f.kind == "analysis_incomplete"]
    assert len(cut) == 1 and cut[0].severity >= Severity.WARNING
    assert f"fe_{many[-1]}.py" in cut[0].message


def test_a_session_within_the_bound_stays_complete(tmp_path: Path) -> None:
    report, _ = analyze_file(str(_project(tmp_path, ROW_RATIOS)))
    assert report.complete
    assert not [f for f in report.findings if f.kind == "analysis_incomplete"]
