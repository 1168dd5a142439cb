"""The static leakage analysis on the kinds wave 34new of public code showed (issue 17, stop 34), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import json
import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.aggspecs import spec_reductions
from faultlib.detect.data.leakage.source import runs_python
from faultlib.detect.data.leakage.textkeys import formatted_text
from faultlib.findings import Severity
from tests.detect.test_leakage_kinds import HEADER, alarms

LEAKS = {
    # a count encoding spelt as a dict spec (pandas/cuDF agg({col: 'count'})) over every row, before the split
    "count_per_value_as_an_agg_dict_then_split": ("""\
        for c in ["shop", "city"]:
            per = table.groupby(c).agg({c: "count"}).reset_index()
            table = table.merge(per, on=c, how="left", suffixes=("", "_n"))
        a, b = train_test_split(table, test_size=0.3)
        Ridge().fit(a.drop(columns=["label"]), a["label"]).score(b.drop(columns=["label"]), b["label"])
        """, [("fit_before_split", 2)]),
    # named aggregation: the mean per group of every row, merged back, then cross-validated
    "named_aggregation_mean_then_cross_validated": ("""\
        per = table.groupby("city").agg(city_mean=("spend", "mean")).reset_index()
        table = table.merge(per, on="city", how="left")
        cross_val_score(Ridge(), table[["city_mean"]], table["label"], cv=4)
        """, [("fit_outside_cv", 1)]),
    # columns named by formatting text in a loop: the statistic is of every row of the training file, whose
    # validation part then scores the model
    "formatted_column_names_standardised_before_the_validation_split": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        for k in range(3):
            raw = "s%d" % k
            z = f"{raw}_z"
            shop[z] = shop[raw] * 2
            mu = shop[z].mean()
            shop[z] = shop[z] - mu
        A, B, ya, yb = train_test_split(shop[["s0_z", "s1_z"]].values, shop["label"].values)
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 7)]),
    # a hand-written model class (fit + predict, no library estimator inside): its validation score is what the
    # notebook reports, and the rows it scores shaped the statistic
    "own_model_class_scored_on_rows_a_statistic_saw": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        shop["w"] = shop["w"] / shop["w"].max()
        class Net:
            def fit(self, A, b):
                self.coef = np.linalg.pinv(A) @ b
            def predict(self, A):
                return A @ self.coef
        A, B, ya, yb = train_test_split(shop[["w"]].values, shop["label"].values)
        net = Net()
        net.fit(A, ya)
        print(np.mean((net.predict(B) - yb) ** 2))
        """, [("fit_before_split", 3)]),
    # a transformer that is a regressor too (PLS): the held-out rows scaled with their own statistics, then scored
    "pls_predicts_test_rows_scaled_with_their_own_statistics": ("""\
        from sklearn.cross_decomposition import PLSRegression
        from sklearn.preprocessing import scale
        from sklearn.metrics import mean_squared_error
        a, b, c, d = train_test_split(X, y)
        pls = PLSRegression(n_components=2).fit(scale(a), c)
        print(mean_squared_error(d, pls.predict(scale(b))))
        """, [("fit_on_test", 6)]),
}

HEALTHY = {
    # the same dict-spec count, but on the training part only, after the split
    "count_per_value_on_the_training_part": ("""\
        a, b = train_test_split(table, test_size=0.3)
        per = a.groupby("shop").agg({"shop": "count"}).reset_index()
        a = a.merge(per, on="shop", how="left", suffixes=("", "_n"))
        Ridge().fit(a.drop(columns=["label"]), a["label"])
        """),
    # a dict-spec count printed for a look, never a feature
    "count_per_value_printed": ("""\
        print(table.groupby("shop").agg({"shop": "count"}))
        a, b = train_test_split(table, test_size=0.3)
        Ridge().fit(a.drop(columns=["label"]), a["label"]).score(b.drop(columns=["label"]), b["label"])
        """),
    # formatted column names, standardised with the training part's statistics after the split
    "formatted_column_names_standardised_after_the_split": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        A, B = train_test_split(shop)
        for k in range(3):
            raw = "s%d" % k
            mu = A[raw].mean()
            A[raw + "_c"] = A[raw] - mu
            B[raw + "_c"] = B[raw] - mu
        Ridge().fit(A[["s0_c"]].values, A["label"].values).score(B[["s0_c"]].values, B["label"].values)
        """),
    # the own model class with the statistic taken after the split, from the training part
    "own_model_class_with_the_statistic_after_the_split": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        A, B, ya, yb = train_test_split(shop[["w"]].values, shop["label"].values)
        top = A.max()
        class Net:
            def fit(self, M, b):
                self.coef = np.linalg.pinv(M) @ b
            def predict(self, M):
                return M @ self.coef
        net = Net()
        net.fit(A / top, ya)
        print(np.mean((net.predict(B / top) - yb) ** 2))
        """),
    # PLS on rows scaled with the training part's scaler
    "pls_predicts_test_rows_scaled_by_the_training_scaler": ("""\
        from sklearn.cross_decomposition import PLSRegression
        from sklearn.metrics import mean_squared_error
        a, b, c, d = train_test_split(X, y)
        sc = StandardScaler().fit(a)
        pls = PLSRegression(n_components=2).fit(sc.transform(a), c)
        print(mean_squared_error(d, pls.predict(sc.transform(b))))
        """),
    # out-of-fold target encoding: each half of the training rows gets the other half's means, then one model is
    # fitted on both halves (nothing scored); the helper's parameter is named for held-out rows, the rows are not
    "out_of_fold_encoding_through_a_helper_with_a_test_named_parameter": ("""\
        def encode(fit_rows, col, te):
            means = fit_rows.groupby(col).agg({"label": "mean"}).reset_index()
            te = te.merge(means, on=col, how="left", suffixes=("", "_enc"))
            return te
        shuffled = table.sample(frac=1.0, random_state=0)
        half = len(shuffled) // 2
        first, second = shuffled[:half], shuffled[half:]
        second = encode(first, "shop", second)
        first = encode(second, "shop", first)
        both = pd.concat([first, second])
        Ridge().fit(both[["label_enc"]], both["label"])
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert sorted(set(alarms(tmp_path, body))) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_helper_fitting_on_a_test_set_the_caller_names_is_still_found(tmp_path):
    # the parameter rule keeps the caller's meaning: rows the caller holds out are still held out in the helper
    body = """\
        def fill(rows):
            return rows.fillna(rows.mean())
        a, b = train_test_split(table, test_size=0.3)
        m = Ridge().fit(fill(a).drop(columns=["label"]), a["label"])
        m.score(fill(b).drop(columns=["label"]), b["label"])
        """
    assert ("fit_on_test", 2) in alarms(tmp_path, body)


def _notebook(path, *cells):
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                           "source": textwrap.dedent(c)} for c in cells],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_a_timed_cell_is_analysed(tmp_path):
    path = tmp_path / "nb.ipynb"
    _notebook(path, HEADER, "%%time\nZ = StandardScaler().fit_transform(X)\n",
              "a, b, c, d = train_test_split(Z, y)\nRidge().fit(a, c).score(b, d)\n")
    report, _ = analyze_file(str(path))
    found = [(f.kind, f.location.get("index"), f.location["line"]) for f in report.findings
             if f.severity >= Severity.WARNING]
    assert found == [("fit_before_split", 2, 2)]


def test_a_captured_cell_that_scales_its_training_part_is_silent(tmp_path):
    path = tmp_path / "nb.ipynb"
    _notebook(path, HEADER, "a, b, c, d = train_test_split(X, y)\n",
              "%%capture out\nsc = StandardScaler().fit(a)\nRidge().fit(sc.transform(a), c).score(sc.transform(b), d)\n")
    report, _ = analyze_file(str(path))
    assert [f for f in report.findings if f.severity >= Severity.WARNING] == [] and report.fits


def test_a_shell_cell_is_still_skipped_whole(tmp_path):
    path = tmp_path / "nb.ipynb"
    _notebook(path, HEADER, "%%bash\nZ = StandardScaler().fit_transform(X)\n",
              "a, b, c, d = train_test_split(X, y)\nRidge().fit(a, c).score(b, d)\n")
    report, _ = analyze_file(str(path))
    assert [f for f in report.findings if f.severity >= Severity.WARNING] == [] and report.fits == []


@pytest.mark.parametrize(("line", "expected"), [("%%time", True), ("%%timeit -n 3", True), ("%%capture out", True),
                                                ("%%bash", False), ("%%writefile a.py", False), ("%%", False)])
def test_cell_magics_that_run_python(line, expected):
    assert runs_python(line) is expected


@pytest.mark.parametrize(("call", "expected"), [
    ("g.agg({'a': 'count'})", ["count"]), ("g.agg({'a': ['min', 'max']})", ["min", "max"]),
    ("g.agg(['mean', 'std'])", ["mean", "std"]), ("g.agg(n=('a', 'nunique'))", ["a", "nunique"]),
    ("g.agg(n=pd.NamedAgg(column='a', aggfunc='median'))", ["a", "median"]), ("g.agg('mean')", []),
    ("g.agg(np.mean)", ["mean"]), ("g.agg({'a': np.sum})", ["sum"]),  # NumPy functions read by name (wave 45)
    ("g.agg(np.nanmedian)", ["median"]), ("g.agg(my_stat)", []), ("g.agg(lambda s: s.max())", []),
])
def test_reductions_named_in_an_agg_spec(call, expected):
    import ast
    assert spec_reductions(ast.parse(call).body[0].value) == expected


@pytest.mark.parametrize(("expr", "expected"), [
    ("'v%d' % i", True), ("f'{c}_n'", True), ("'a_' + c", True), ("'{}_z'.format(c)", True), ("key", True),
    ("mask", False), ("idx", False), ("df.a > 0", False),
])
def test_formatted_text_keys(expr, expected):
    import ast
    bindings = {"key": [ast.parse("'v%d' % i").body[0].value], "mask": [ast.parse("df.a > 0").body[0].value],
                "idx": [ast.parse("'a'").body[0].value, ast.parse("np.arange(3)").body[0].value]}
    assert formatted_text(ast.parse(expr).body[0].value, bindings) is expected
