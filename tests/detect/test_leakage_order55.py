"""The static leakage analysis reports its findings in (file, line) order, whichever pass found them: the hooks that
read other scripts of the project (a saved model scored on its own training rows, :mod:`.modelfiles`) run after the
program's own passes, and their finding on an early line must still come before a later line's finding.

Every example is a small project written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from tests.detect.test_leakage_fix84 import _write

#: fit on every row and save; load, score on the same rows (line 7); scale new rows by a mean over both (line 11)
PROJECT = {
    "fit_model.py": """\
        import joblib
        import pandas as pd
        from sklearn.ensemble import GradientBoostingClassifier

        claims = pd.read_csv('data/claims_clean.csv')
        booster = GradientBoostingClassifier().fit(claims[['amount', 'age']], claims['fraud'])
        joblib.dump(booster, 'models/booster.joblib')
    """,
    "report.py": """\
        import joblib
        import pandas as pd
        from sklearn.metrics import classification_report

        claims = pd.read_csv('data/claims_clean.csv')
        booster = joblib.load('models/booster.joblib')
        flagged = booster.predict(claims[['amount', 'age']])
        print(classification_report(claims['fraud'], flagged))
        fresh = pd.read_csv('data/claims_test.csv')
        both = pd.concat([claims, fresh])
        fresh['amount'] = (fresh['amount'] - both['amount'].mean()) / both['amount'].std()
        print(booster.predict(fresh[['amount', 'age']]))
    """,
}


def _lines(root: Path, entry: str) -> list[tuple[str, int]]:
    report, smap = analyze_file(str(root / entry))
    return [(f.kind, f.location.get("line", 0)) for f in report.findings if f.location.get("file", smap.file)
            == smap.file]


def test_a_cross_script_finding_comes_in_line_order(tmp_path: Path) -> None:
    _write(tmp_path, PROJECT)
    found = _lines(tmp_path, "report.py")
    assert ("trained_on_test", 7) in found and ("fit_on_test", 11) in found
    assert [line for _, line in found] == sorted(line for _, line in found)


def test_findings_of_one_script_alone_stay_in_line_order(tmp_path: Path) -> None:
    _write(tmp_path, {"report.py": PROJECT["report.py"]})
    found = _lines(tmp_path, "report.py")
    assert "trained_on_test" not in {k for k, _ in found}
    assert [line for _, line in found] == sorted(line for _, line in found)
