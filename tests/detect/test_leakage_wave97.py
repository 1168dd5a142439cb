"""The static leakage analysis on the kinds a held-out wave of bioinformatics and cheminformatics projects showed
(issue 17, wave 97: microarray and RNA-seq classifiers, QSAR models, drug-target interaction), in both directions:

* minority rows drawn again with Python's ``random.sample`` from the index of one class and stacked back onto the
  table, before a cross-validated search, repeat rows across its folds (``fit_outside_cv``);
* a two-sample test of each gene between the label's classes (SciPy ``ttest_ind``, ``mannwhitneyu``) choosing the
  genes before a split or a cross-validation is supervised selection on every sample (Ambroise & McLachlan 2002);
* a one-class SVM's ranking of the negative rows (``decision_function``) choosing which of them to keep, before the
  split, is a fit of the rows the test part then holds;
* a scaler fitted on a genes-by-samples matrix and then transposed standardised each sample over its own genes:
  no statistic crosses samples, no alarm.

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def _alarms(tmp_path: Path, source: str, name: str = "study.py") -> set[tuple[str, int]]:
    """(kind, line) of every finding at warning or above of ``source`` written to ``name``."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    report, _ = analyze_file(str(path))
    return {(f.kind, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


# ---------------------------------------------------------------- minority rows repeated with random.sample

def test_minority_rows_drawn_with_random_sample_and_stacked_before_the_search(tmp_path):
    source = """\
        import random
        import pandas as pd
        from sklearn.model_selection import GridSearchCV
        from sklearn.linear_model import LogisticRegression

        cohort = pd.read_csv("cohort.csv")
        held = pd.read_csv("independent.csv")
        extra = random.sample(cohort.query("label == 1").index.to_list(), k=6)
        grown = pd.concat([cohort, cohort.iloc[extra, :]])
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=3)
        search.fit(grown.drop(columns=["label"]), grown["label"])
        print(search.score(held.drop(columns=["label"]), held["label"]))
    """
    assert ("fit_outside_cv", 9) in _alarms(tmp_path, source)


def test_majority_rows_drawn_down_with_random_sample_repeat_none(tmp_path):
    source = """\
        import random
        import pandas as pd
        from sklearn.model_selection import GridSearchCV
        from sklearn.linear_model import LogisticRegression

        cohort = pd.read_csv("cohort.csv")
        held = pd.read_csv("independent.csv")
        some = random.sample(cohort.query("label == 0").index.to_list(), k=6)
        balanced = pd.concat([cohort.loc[some], cohort.query("label == 1")])
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=3)
        search.fit(balanced.drop(columns=["label"]), balanced["label"])
        print(search.score(held.drop(columns=["label"]), held["label"]))
    """
    assert _alarms(tmp_path, source) == set()


# ---------------------------------------------------------------- genes chosen by a test between the classes

def test_genes_kept_by_a_t_test_between_the_classes_before_the_split(tmp_path):
    source = """\
        import numpy as np
        import pandas as pd
        from scipy.stats import ttest_ind
        from sklearn.model_selection import train_test_split
        from sklearn.svm import SVC

        arrays = pd.read_csv("arrays.csv")
        probes = [c for c in arrays.columns if c != "label"]
        p = [ttest_ind(arrays.loc[arrays["label"] == 1, g], arrays.loc[arrays["label"] == 0, g]).pvalue for g in probes]
        best = np.array(probes)[np.argsort(p)[:25]]
        X_a, X_b, y_a, y_b = train_test_split(arrays[best], arrays["label"], test_size=0.3)
        print(SVC().fit(X_a, y_a).score(X_b, y_b))
    """
    assert ("fit_before_split", 9) in _alarms(tmp_path, source)


def test_genes_kept_by_a_rank_test_between_the_classes_before_cross_validation(tmp_path):
    source = """\
        import pandas as pd
        from scipy.stats import mannwhitneyu
        from sklearn.model_selection import cross_val_score
        from sklearn.linear_model import LogisticRegression

        counts = pd.read_csv("counts.csv")
        y = counts.pop("label")
        cases, controls = counts[y == 1], counts[y == 0]
        kept = []
        for gene in counts.columns:
            u, p = mannwhitneyu(cases[gene], controls[gene])
            if p < 0.01:
                kept.append(gene)
        print(cross_val_score(LogisticRegression(), counts[kept], y, cv=5).mean())
    """
    assert ("fit_outside_cv", 11) in _alarms(tmp_path, source)


def test_a_t_test_on_the_training_part_only_is_no_leak(tmp_path):
    source = """\
        import pandas as pd
        from scipy.stats import ttest_ind
        from sklearn.model_selection import train_test_split
        from sklearn.svm import SVC

        arrays = pd.read_csv("arrays.csv")
        X_a, X_b, y_a, y_b = train_test_split(arrays.drop(columns=["label"]), arrays["label"], test_size=0.3)
        kept = [g for g in X_a.columns if ttest_ind(X_a[y_a == 1][g], X_a[y_a == 0][g]).pvalue < 0.01]
        print(SVC().fit(X_a[kept], y_a).score(X_b[kept], y_b))
    """
    assert _alarms(tmp_path, source) == set()


def test_a_drift_test_between_the_parts_and_a_printed_test_are_no_label_scores(tmp_path):
    source = """\
        import pandas as pd
        from scipy.stats import ks_2samp, ttest_ind
        from sklearn.model_selection import cross_val_score, train_test_split
        from sklearn.svm import SVC

        arrays = pd.read_csv("arrays.csv")
        y = arrays.pop("label")
        for g in arrays.columns:
            print(g, ttest_ind(arrays[y == 1][g], arrays[y == 0][g]).pvalue)
        X_a, X_b, y_a, y_b = train_test_split(arrays, y, test_size=0.3)
        stable = [g for g in X_a.columns if ks_2samp(X_a[g], X_b[g]).pvalue > 0.05]
        print(cross_val_score(SVC(), arrays, y, cv=5).mean(), len(stable))
    """
    assert _alarms(tmp_path, source) == set()


# ---------------------------------------------------------------- negatives kept by a one-class SVM's ranking

def test_negatives_kept_by_a_one_class_svm_ranking_before_the_split(tmp_path):
    source = """\
        import numpy as np
        import pandas as pd
        from sklearn.svm import OneClassSVM
        from sklearn.model_selection import train_test_split
        from sklearn.ensemble import RandomForestClassifier

        links = pd.read_csv("links.csv")
        unknown, known = links[links["label"] == 0], links[links["label"] == 1]
        shape = unknown.drop(columns=["label"])
        ocsvm = OneClassSVM(nu=0.5).fit(shape.values)
        closest = np.argsort(-ocsvm.decision_function(shape.values))[: len(known)]
        even = pd.concat([unknown.iloc[closest], known])
        X_a, X_b, y_a, y_b = train_test_split(even.drop(columns=["label"]), even["label"], test_size=0.2)
        print(RandomForestClassifier().fit(X_a, y_a).score(X_b, y_b))
    """
    assert ("fit_before_split", 10) in _alarms(tmp_path, source)


def test_a_detector_ranking_the_training_part_or_new_rows_is_no_leak(tmp_path):
    source = """\
        import numpy as np
        import pandas as pd
        from sklearn.ensemble import IsolationForest, RandomForestClassifier
        from sklearn.svm import OneClassSVM
        from sklearn.model_selection import train_test_split

        links = pd.read_csv("links.csv")
        X_a, X_b, y_a, y_b = train_test_split(links.drop(columns=["label"]), links["label"], test_size=0.2)
        ocsvm = OneClassSVM(nu=0.1).fit(X_a.values)
        usual = np.argsort(-ocsvm.decision_function(X_a.values))[: int(0.9 * len(X_a))]
        print(RandomForestClassifier().fit(X_a.iloc[usual], y_a.iloc[usual]).score(X_b, y_b))
        forest = IsolationForest().fit(X_a.values)
        print(X_b.iloc[np.argsort(forest.score_samples(X_b.values))[:10]])
    """
    assert _alarms(tmp_path, source) == set()


# ---------------------------------------------------------------- a genes-by-samples matrix scaled, then turned round

def test_a_scaler_on_the_genes_by_samples_matrix_then_transposed_is_per_sample(tmp_path):
    source = """\
        import numpy as np
        import pandas as pd
        from sklearn.preprocessing import StandardScaler
        from sklearn.model_selection import cross_val_score
        from sklearn.svm import SVC

        genes_by_samples = np.loadtxt("matrix.txt")
        labels = np.loadtxt("classes.txt")
        each_sample = StandardScaler().fit_transform(genes_by_samples)
        print(cross_val_score(SVC(), each_sample.T, labels, cv=5).mean())
        frame = pd.DataFrame(StandardScaler().fit_transform(genes_by_samples))
        print(cross_val_score(SVC(), frame.transpose(), labels, cv=5).mean())
    """
    assert _alarms(tmp_path, source) == set()


def test_a_scaler_on_the_samples_after_the_transposition_is_still_a_fit_of_every_sample(tmp_path):
    source = """\
        import numpy as np
        from sklearn.preprocessing import StandardScaler
        from sklearn.model_selection import cross_val_score
        from sklearn.svm import SVC

        genes_by_samples = np.loadtxt("matrix.txt")
        labels = np.loadtxt("classes.txt")
        samples = genes_by_samples.T
        scaled = StandardScaler().fit_transform(samples)
        print(cross_val_score(SVC(), scaled, labels, cv=5).mean())
    """
    assert ("fit_outside_cv", 9) in _alarms(tmp_path, source)
