"""The static leakage analysis after stop 55's review clean-up (issue 17), in both directions:

* a slice of a name that holds text -- a file name from a folder listing, a path built with ``os.path.join`` --
  drops characters, not rows (rowcuts.py, textnames.py): a training script that strips ``name[:-4]`` of its file
  names holds no row out, so the model it saves, scored by another script on the same table, is scored on its
  training rows (modelfiles.py); a slice of the table's rows stays a cut;
* a cut-off swept over the test labels named by the script's own target column (``Churn_test`` where the label is
  ``df["Churn"]``), the best kept, is a choice scored on the test rows (scoreloops.py); another column's test part,
  or the target's validation part, stays silent.

Every example is written for this test."""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.rowcuts import cuts_rows
from faultlib.detect.data.leakage.textnames import text_names
from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_misses54 import alarms, line_of

# ---------------------------------------------------------------- a file name's slice is no row cut

#: a two-script project: the first fits on every row of a table (file names only name its sites) and saves
TRAINER = """\
    import os
    import pickle
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    table = pd.read_csv('data/sites.csv'){cut}
    known = []
    for entry in sorted(os.listdir('site_notes')):
        known.append(entry[:-4])
    print(len(known), 'sites noted')
    model = LogisticRegression().fit(table[['volts', 'amps']], table['fault'])
    pickle.dump(model, open('out/model.pkl', 'wb'))
"""

SCORER = """\
    import pickle
    import pandas as pd
    from sklearn.metrics import accuracy_score

    table = pd.read_csv('data/sites.csv')
    model = pickle.load(open('out/model.pkl', 'rb'))
    guesses = model.predict(table[['volts', 'amps']])
    print(accuracy_score(table['fault'], guesses))
"""


def test_a_model_fitted_after_slicing_file_names_is_scored_on_its_training_rows(tmp_path):
    write(tmp_path, "fit_sites.py", TRAINER.format(cut=""))
    path = write(tmp_path, "score_sites.py", SCORER)
    assert ("trained_on_test", line_of(path, "model.predict(")) in alarms(path)


def test_a_model_fitted_on_a_slice_of_the_table_rows_is_silent(tmp_path):
    write(tmp_path, "fit_sites.py", TRAINER.format(cut="[:-400]"))
    path = write(tmp_path, "score_sites.py", SCORER)
    assert "trained_on_test" not in [k for k, _ in alarms(path)]


def test_text_names_are_file_names_and_paths_never_tables():
    code = ("import os\nimport pandas as pd\nfor f in os.listdir(d):\n    p = os.path.join(d, f)\n"
            "    label = f.split('_')[0]\nstem = 'run' + str(3)\ndf = pd.read_csv(p)\nmixed = 'a.csv'\n"
            "mixed = pd.read_csv(mixed)\ncleaned = df.replace('?', None)\n")
    assert text_names(ast.parse(code)) >= {"f", "p", "stem"}
    assert not text_names(ast.parse(code)) & {"df", "mixed", "cleaned"}
    assert not cuts_rows(ast.parse("import os\nfor name in os.listdir(d):\n    stem = name[:-4]\n"))
    assert not cuts_rows(ast.parse("import os\np = os.path.join(root, f)\nmodule = p[:-3]\n"))
    assert cuts_rows(ast.parse("import pandas as pd\ndf = pd.read_csv('a.csv')\nfit = df[:-400]\n"))
    assert cuts_rows(ast.parse("import pandas as pd\nname = 'a.csv'\nname = pd.read_csv(name)\nfit = name[:-4]\n"))


# ---------------------------------------------------------------- test labels named by the target column

SWEEP = """\
    import numpy as np
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import f1_score

    df = pd.read_csv('customers.csv')
    X = df.drop(columns=['Churn'])
    y = df['Churn']
    X_train, X_test, Churn_train, {held} = X[:800], X[800:], y[:800], y[800:]
    proba = RandomForestClassifier().fit(X_train, Churn_train).predict_proba(X_test)[:, 1]
    best_f1, best_cut = 0, 0.5
    for cut in np.linspace(0.05, 0.95, 19):
        f1 = f1_score({held}, proba >= cut)
        if f1 > best_f1:
            best_f1, best_cut = f1, cut
    print(best_cut, best_f1)
"""


def test_a_cut_off_kept_by_its_score_on_the_target_columns_test_part_is_tuned_on_test(tmp_path):
    path = write(tmp_path, "sweep.py", SWEEP.format(held="Churn_test"))
    assert ("tuned_on_test", line_of(path, "f1 = f1_score(")) in alarms(path)


def test_the_same_sweep_on_another_columns_test_part_or_on_the_targets_validation_part_is_silent(tmp_path):
    for held in ("Tenure_test", "Churn_val"):
        path = write(tmp_path, f"sweep_{held}.py", SWEEP.format(held=held))
        assert ("tuned_on_test", line_of(path, "f1 = f1_score(")) not in alarms(path), held
