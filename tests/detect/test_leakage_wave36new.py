"""The static leakage analysis on the kinds wave 36new of public code showed (issue 17, stop 36), in both
directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.session import session_members
from faultlib.findings import Severity

# a notebook saved under the name of the library it uses: its own code leaks (a scaler before the split)
NAMESAKE = """\
import pandas as pd
import lightgbm as lgb
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import train_test_split

houses = pd.read_csv("houses.csv")
target = houses.pop("price")
scaled = StandardScaler().fit_transform(houses)
a, b, ya, yb = train_test_split(scaled, target)
booster = lgb.LGBMRegressor().fit(a, ya)
print(booster.score(b, yb))
"""

# another notebook of the same folder: it imports the library, fits on the training part only
CAREFUL = """\
import pandas as pd
import lightgbm as lgb
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import train_test_split

flats = pd.read_csv("flats.csv")
rent = flats.pop("rent")
a, b, ya, yb = train_test_split(flats, rent)
sc = StandardScaler().fit(a)
booster = lgb.LGBMRegressor().fit(sc.transform(a), ya)
print(booster.score(sc.transform(b), yb))
"""

# a real helper module of the same name as the import (it does not import itself): still joined
HELPER = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler

def scale_all(frame):
    return StandardScaler().fit_transform(frame)
"""

USES_HELPER = """\
import pandas as pd
import lightgbm
from sklearn.model_selection import train_test_split

flats = pd.read_csv("flats.csv")
rent = flats.pop("rent")
scaled = lightgbm.scale_all(flats)
a, b, ya, yb = train_test_split(scaled, rent)
"""


def _alarms(path: Path) -> list:
    report, _ = analyze_file(str(path))
    return [f for f in report.findings if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"]


def test_a_sibling_named_like_the_package_it_imports_is_not_joined(tmp_path: Path) -> None:
    (tmp_path / "lightgbm.py").write_text(NAMESAKE)
    careful = tmp_path / "flats.py"
    careful.write_text(CAREFUL)
    assert session_members(careful) == [careful]
    assert _alarms(careful) == []


def test_the_namesake_script_itself_is_still_analysed(tmp_path: Path) -> None:
    namesake = tmp_path / "lightgbm.py"
    namesake.write_text(NAMESAKE)
    (tmp_path / "flats.py").write_text(CAREFUL)
    kinds = {(f.kind, f.location.get("line")) for f in _alarms(namesake)}
    assert ("fit_before_split", 8) in kinds


def test_a_helper_module_that_does_not_import_itself_is_still_joined(tmp_path: Path) -> None:
    (tmp_path / "lightgbm.py").write_text(HELPER)
    script = tmp_path / "flats.py"
    script.write_text(USES_HELPER)
    assert session_members(script) == [tmp_path / "lightgbm.py", script]


# a notebook exported as a script: the %%time cells became run_cell_magic calls holding the cell's code
EXPORTED = '''\
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import TimeSeriesSplit, cross_val_score

visits = pd.read_csv("visits.csv")
get_ipython().run_cell_magic('time', '', {fit!r})
get_ipython().run_cell_magic('time', '', {score!r})
'''

FIT_ALL = "vec = TfidfVectorizer()\\nX = vec.fit_transform(visits['pages'])\\n!nvidia-smi\\n"
SCORE = "scores = cross_val_score({model}, X, visits['bot'], cv=TimeSeriesSplit(5))\\nprint(scores.mean())\\n"


def _exported(tmp_path: Path, fit: str, score: str, magic: str = "time") -> Path:
    text = EXPORTED.format(fit=fit.encode().decode("unicode_escape"), score=score.encode().decode("unicode_escape"))
    script = tmp_path / "visits.py"
    script.write_text(text.replace("run_cell_magic('time'", f"run_cell_magic('{magic}'"))
    return script


def test_a_fit_inside_an_exported_time_cell_before_cross_validation_is_found(tmp_path: Path) -> None:
    script = _exported(tmp_path, FIT_ALL, SCORE.format(model="LogisticRegression()"))
    kinds = {(f.kind, f.location.get("line")) for f in _alarms(script)}
    assert ("fit_outside_cv", 7) in kinds


def test_a_pipeline_cross_validated_inside_an_exported_time_cell_stays_silent(tmp_path: Path) -> None:
    fit = "from sklearn.pipeline import make_pipeline\\nmodel = make_pipeline(TfidfVectorizer(), LogisticRegression())\\n"
    score = "scores = cross_val_score(model, visits['pages'], visits['bot'], cv=TimeSeriesSplit(5))\\n"
    assert _alarms(_exported(tmp_path, fit, score)) == []


def test_a_cell_magic_that_does_not_run_python_is_left_alone(tmp_path: Path) -> None:
    script = _exported(tmp_path, FIT_ALL, SCORE.format(model="LogisticRegression()"), magic="writefile")
    assert _alarms(script) == []
