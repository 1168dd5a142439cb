"""The static leakage analysis reports its findings in (file, line) order, whichever pass found them: the hooks that
read other scripts of the project (a saved model scored on its own training rows, :mod:`.modelfiles`) run after the
program's own passes, and their finding on an early line must still come before a later line's finding.

Every example is a small project written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from tests.detect.test_leakage_fix84 import _write
from tests.detect.test_leakage_wave91 import PIPELINE

#: wave 91's project (fit on every row and save; load and score on the same rows, line 7), and new rows of another
#: table scaled by a mean over both tables (line 11)
PROJECT = {**{k: v.replace("{rows}", "") for k, v in PIPELINE.items()},
           "report.py": PIPELINE["report.py"].rstrip(" ") + """\
        fresh = pd.read_csv('data/claims_test.csv')
        both = pd.concat([claims, fresh])
        fresh['amount'] = (fresh['amount'] - both['amount'].mean()) / both['amount'].std()
        print(booster.predict(fresh[['amount', 'age']]))
    """}


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
