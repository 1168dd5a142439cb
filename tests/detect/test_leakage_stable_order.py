"""The same code always gives the same findings: where two fits share a line (``(x - x.mean()) / x.std()``),
the finding names the first one written, not whichever a set's hash order puts first (two runs of one notebook
named ``.mean()`` once and ``.std()`` the next). Example written for this test."""

from __future__ import annotations

from pathlib import Path

COLUMNS = ("age", "chol", "bp", "rate", "peak", "sugar")
SCRIPT = (
    "import pandas as pd\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "beats = pd.read_csv('beats.csv')\n"
    + "".join(f"beats['{c}'] = (beats['{c}'] - beats['{c}'].mean()) / beats['{c}'].std()\n" for c in COLUMNS)
    + "X_tr, X_te, y_tr, y_te = train_test_split(beats[{cols}], beats['sick'])\n".format(cols=list(COLUMNS))
    + "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n")


def test_fits_on_one_line_are_named_in_the_order_written(tmp_path: Path) -> None:
    from faultlib.detect.data.leakage import analyze_file

    (tmp_path / "beats.py").write_text(SCRIPT)
    report, _ = analyze_file(str(tmp_path / "beats.py"))
    named = [f.message.split("`")[1] for f in report.findings
             if f.kind == "fit_before_split"]
    assert named == [f"beats['{c}'].mean()" for c in COLUMNS]
