"""The static leakage analysis on false-alarm kinds judged at stop 53 (issue 17), in both directions:

* a column dropped because it holds one value over all the rows (``nunique() <= 1``, ``std() == 0``,
  ``VarianceThreshold()`` at threshold 0) before the split is no fit: no model can use a column constant in its
  training part (constancy.py); a drop by a missing share, a variance cut or many distinct values stays a fit;
* a whole table repeated and nothing else (``pd.concat([X] * k)``, ``pd.concat([df, df])``) is not oversampling;
  a class's rows repeated and joined to the rest stay oversampling (rowdraws.py).

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from faultlib.detect.data.leakage.constancy import constancy_tests
from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "script.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, textwrap.dedent(text), name)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(text).split("\n"), 1) if needle in line)


# ---------------------------------------------------------------- constant columns dropped before the split

_HEAD = """\
    import pandas as pd
    from sklearn.feature_selection import VarianceThreshold
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    visits = pd.read_csv("shop_visits.csv")
"""

_TAIL = """\
    inputs = visits.drop(columns=["bought"])
    X_fit, X_held, y_fit, y_held = train_test_split(inputs, visits["bought"], test_size=0.25, random_state=3)
    shopper = LogisticRegression(max_iter=500).fit(X_fit, y_fit)
    print(shopper.score(X_held, y_held))
"""

#: each cleaning step before the split: (the step, the line that drops, whether it learns from the rows)
_DROPS = [
    ("for name in visits.columns:\n        if visits[name].nunique() == 1:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "visits.drop(name", False),
    ("for name in list(visits.columns):\n        distinct = visits[name].nunique()\n        if distinct < 2:\n"
     "            del visits[name]\n", "del visits", False),
    ("for name in list(visits.columns):\n        if len(visits[name].unique()) <= 1:\n"
     "            visits = visits.drop(name, axis=1)\n", "visits = visits.drop", False),
    ("flat = [c for c in visits.columns if visits[c].nunique() <= 1]\n    if flat:\n"
     "        visits = visits.drop(columns=flat)\n", "flat = [c", False),
    ("visits = visits.loc[:, visits.std() > 0]\n", "visits.std()", False),
    ("visits = visits.loc[:, visits.var() != 0]\n", "visits.var()", False),
    ("for name in list(visits.columns):\n        if visits[name].min() == visits[name].max():\n"
     "            visits.pop(name)\n", "visits.pop", False),
    # the look-alikes that learn from the rows stay fits before the split
    ("for name in visits.columns:\n        if visits[name].isnull().mean() > 0.5:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "if visits[name].isnull()", True),
    ("gappy = [c for c in visits.columns if visits[c].isnull().mean() > 0.5]\n    if gappy:\n"
     "        visits = visits.drop(columns=gappy)\n", "gappy = [c", True),
    ("for name in visits.columns:\n        if visits[name].nunique() > 40:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "if visits[name].nunique()", True),
    ("visits = visits.loc[:, visits.std() > 0.3]\n", "visits.std()", True),
    ("for name in visits.columns:\n        if visits[name].nunique() == 1 or visits[name].isnull().mean() > 0.9:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "if visits[name].nunique()", True),
]


@pytest.mark.parametrize("step,needle,learns", _DROPS, ids=[
    "loop-nunique-eq-1", "named-count-lt-2", "len-unique", "comprehension-guarded", "std-gt-0", "var-ne-0",
    "min-eq-max", "loop-missing-share", "comprehension-missing-share", "many-distinct", "std-gt-cut",
    "constant-or-missing"])
def test_a_drop_of_constant_columns_learns_nothing_other_drops_stay_fits(
        tmp_path: Path, step: str, needle: str, learns: bool) -> None:
    script = _HEAD + "    " + step + _TAIL
    found = _alarms(tmp_path, script)
    if learns:
        assert found, step
    else:
        assert found == set(), step


def _selector(threshold: str) -> str:
    return _HEAD + f"""\
    inputs = visits.drop(columns=["bought"])
    inputs = VarianceThreshold({threshold}).fit_transform(inputs)
    X_fit, X_held, y_fit, y_held = train_test_split(inputs, visits["bought"], test_size=0.25, random_state=3)
    shopper = LogisticRegression(max_iter=500).fit(X_fit, y_fit)
    print(shopper.score(X_held, y_held))
"""


@pytest.mark.parametrize("threshold", ["", "0", "threshold=0.0"])
def test_variance_threshold_at_zero_before_the_split_is_silent(tmp_path: Path, threshold: str) -> None:
    assert _alarms(tmp_path, _selector(threshold)) == set()


def test_variance_threshold_with_a_cut_before_the_split_is_still_reported(tmp_path: Path) -> None:
    script = _selector("threshold=0.2")
    assert ("fit_before_split", _line(script, "VarianceThreshold(threshold")) in _alarms(tmp_path, script)


def test_which_comparisons_ask_whether_a_column_is_constant() -> None:
    import ast

    cases = {
        "x.nunique() == 1": True, "x.nunique() <= 1": True, "x.nunique() > 1": True, "1 < x.nunique()": True,
        "x.n_unique() != 1": True, "len(set(x)) == 1": True, "x.std() == 0": True, "x.var() <= 0.0": True,
        "x.std() < 1e-9": True, "x.max() == x.min()": True,
        "x.nunique() > 2": False, "x.nunique() == 2": False, "x.std() > 0.1": False, "x.mean() == 0": False,
        "x.isnull().mean() > 0.5": False, "x.nunique() <= 1 <= 2": False, "x.std(axis=1) == 0": False,
    }
    for text, expected in cases.items():
        tree = ast.parse(text)
        compare = tree.body[0].value  # type: ignore[attr-defined]
        assert (id(compare) in constancy_tests(tree)) is expected, text


# ---------------------------------------------------------------- a whole table repeated

_REPEATS = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    days = pd.read_csv("store_days.csv")
    {stack}
    X_fit, X_held, y_fit, y_held = train_test_split(days[["price", "promo"]], days["busy"], test_size=0.2)
    model = LogisticRegression().fit(X_fit, y_fit)
    print(model.score(X_held, y_held))
"""


@pytest.mark.parametrize("stack", [
    "days = pd.concat([days] * 3)",
    "days = pd.concat([days, days], ignore_index=True)",
    "copies = 2\n    days = pd.concat([days] * copies)",
], ids=["list-times-k", "listed-twice", "times-a-name"])
def test_a_whole_table_repeated_is_not_oversampling(tmp_path: Path, stack: str) -> None:
    assert _alarms(tmp_path, _REPEATS.format(stack=stack)) == set()


@pytest.mark.parametrize("stack,needle", [
    ("busy = days[days['busy'] == 1]\n    days = pd.concat([days] + [busy] * 3)", "days = pd.concat"),
    ("busy = days[days['busy'] == 1]\n    quiet = days[days['busy'] == 0]\n"
     "    busy = pd.concat([busy] * 4)\n    days = pd.concat([quiet, busy])", "busy = pd.concat"),
    ("promos = days[days['promo'] > 0]\n    days = pd.concat([days, promos, promos])", "days = pd.concat"),
], ids=["class-rows-repeated", "class-rows-repeated-alone-then-joined", "subset-listed-twice"])
def test_a_class_or_subset_repeated_and_joined_to_the_rest_is_still_oversampling(
        tmp_path: Path, stack: str, needle: str) -> None:
    script = _REPEATS.format(stack=stack)
    assert ("fit_before_split", _line(script, needle)) in _alarms(tmp_path, script)
