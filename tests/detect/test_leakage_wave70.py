"""The static leakage analysis on the kinds a held-out wave of biomedical and chemistry notebooks showed (issue 17,
wave 70: genes ranked by a Relief-family selector of scikit-rebate on every sample, then cross-validated; an
expression matrix stored genes x samples and turned by ``transpose()`` before both the fit and the scored model; the
kept genes read off a ranking through an array of the column names), each in both directions: the leak found at its
line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a made-up expression table (one row per gene, one column per patient) and the patients' relapse flags
GENES_BY_PATIENT = """\
        from sklearn.svm import SVC
        expression = pd.read_table("expression.tsv", index_col=0)
        relapse = pd.read_table("relapse.tsv", index_col=0)["relapse"]
"""

#: the same measurements already one row per patient
PATIENTS = """\
        from sklearn.svm import SVC
        patients = pd.read_csv("patients.csv")
        outcome = patients.pop("relapse")
"""

LEAKS = {
    # ReliefF scores every gene on every patient with the labels, its best 30 are then cross-validated
    "relief_ranked_genes_kept_then_cross_validated": (PATIENTS + """\
        from skrebate import ReliefF
        scorer = ReliefF(n_features_to_select=30, n_neighbors=5)
        scorer.fit(patients.values, outcome.values)
        top = patients.columns[np.argsort(scorer.feature_importances_)[-30:]]
        print(cross_val_score(SVC(), patients[top], outcome, cv=5).mean())
""", [("fit_outside_cv", 6)]),
    # MultiSURF's own transform keeps the genes it ranked best over every patient
    "multisurf_transform_of_every_patient_then_cross_validated": (PATIENTS + """\
        from skrebate import MultiSURF
        kept = MultiSURF(n_features_to_select=10).fit_transform(patients.values, outcome.values)
        print(cross_val_score(SVC(), kept, outcome, cv=4).mean())
""", [("fit_outside_cv", 5)]),
    # the table is turned by transpose() for the scaler and again for the scored model: the same patients
    "a_scaler_on_the_transposed_table_then_cross_validated": (GENES_BY_PATIENT + """\
        rescaled = StandardScaler().fit_transform(expression.transpose().values)
        print(cross_val_score(SVC(), rescaled, relapse, cv=5).mean())
""", [("fit_outside_cv", 4)]),
    # TuRF on the transposed table, the kept genes read off its scores through an array of the gene names
    "turf_ranked_names_through_an_array_of_names_then_cross_validated": (GENES_BY_PATIENT + """\
        from skrebate import TuRF
        gene_names = np.array(expression.transpose().columns)
        turf = TuRF(core_algorithm="ReliefF", n_features_to_select=15, pct=0.5)
        turf.fit(expression.transpose().values, relapse.values, list(gene_names))
        order = np.argsort(turf.feature_importances_)
        picked = gene_names[order][turf.feature_importances_[order] > 0.02]
        print(cross_val_score(SVC(), expression.transpose()[picked].values, relapse, cv=3).mean())
""", [("fit_outside_cv", 7)]),
}

HEALTHY = {
    # the Relief selector inside the pipeline: refitted on each fold's training patients
    "relief_inside_a_pipeline_is_refitted_per_fold": (PATIENTS + """\
        from skrebate import ReliefF
        chain = make_pipeline(ReliefF(n_features_to_select=30), SVC())
        print(cross_val_score(chain, patients.values, outcome.values, cv=5).mean())
""", []),
    # ranked on the training part of a split only, scored on the other part
    "relief_fitted_on_the_training_part_only": (PATIENTS + """\
        from skrebate import ReliefF
        tr_x, te_x, tr_y, te_y = train_test_split(patients, outcome, random_state=1)
        scorer = ReliefF(n_features_to_select=20).fit(tr_x.values, tr_y.values)
        top = tr_x.columns[np.argsort(scorer.feature_importances_)[-20:]]
        print(SVC().fit(tr_x[top], tr_y).score(te_x[top], te_y))
""", []),
    # the transposed table scaled inside the pipeline
    "the_transposed_table_scaled_inside_a_pipeline": (GENES_BY_PATIENT + """\
        chain = make_pipeline(StandardScaler(), SVC())
        print(cross_val_score(chain, expression.transpose().values, relapse, cv=5).mean())
""", []),
    # names of the array picked by hand (no fitted ranking): a fixed panel of genes
    "a_fixed_gene_panel_read_through_an_array_of_names": (GENES_BY_PATIENT + """\
        gene_names = np.array(expression.transpose().columns)
        panel = gene_names[:12]
        print(cross_val_score(SVC(), expression.transpose()[panel].values, relapse, cv=3).mean())
""", []),
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_70_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected
