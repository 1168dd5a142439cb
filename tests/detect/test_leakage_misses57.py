"""The static leakage analysis on missed-leak kinds labelled as false negatives of the held-out wave 99 (issue 17,
stop 57), in both directions.

M1, early stopping on the fold whose score is reported, in spellings the check did not follow:

* ``early_stopping_round`` as a key of the params dictionary given to ``lgb.train`` (boosterparams.py);
* a callback watching a metric a custom callback computes on the evaluation rows (``monitor='norm_gini_val'``);
* a score in a training callback's method, or in another function that trains and scores its own local hold-out,
  taken for "another held-out part scored" (otherscores.py);
* the fit inside a helper function (or an estimator's method) whose caller scores the fold it handed over
  (callerscores.py), not when the call sits in a branch a string mode switches off;
* the booster's best score read back as ``mdl.attr('best_score')`` (stopscores.py).

Every example is written for this test."""

from __future__ import annotations

from tests.detect.leakage_source import dedented_alarms, line_of

# ------------------------------------------------------------------------- early stopping in a params dictionary

PARAMS_STOP = """\
    import lightgbm as lgb
    import numpy as np
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    orders = pd.read_csv('orders.csv')
    X, y = orders.drop(columns='returned'), orders['returned']
    params = {'objective': 'binary', 'learning_rate': 0.05, {stop}}
    aucs = []
    for fit_idx, hold_idx in StratifiedKFold(4, shuffle=True).split(X, y):
        X_fit, X_hold = X.iloc[fit_idx], X.iloc[hold_idx]
        y_fit, y_hold = y.iloc[fit_idx], y.iloc[hold_idx]
        booster = lgb.train(params, lgb.Dataset(X_fit, y_fit), num_boost_round=3000,
                            valid_sets=[lgb.Dataset(X_hold, y_hold)])
        aucs.append(roc_auc_score(y_hold, booster.predict(X_hold)))
    print(np.mean(aucs))
"""


def test_early_stopping_round_in_the_params_dict_stops_on_the_scored_fold(tmp_path):
    text = PARAMS_STOP.replace("{stop}", "'early_stopping_round': 80")
    assert ("tuned_on_test", line_of(text, "lgb.train(")) in dedented_alarms(tmp_path, text)


def test_the_params_dict_without_a_stopping_rule_is_silent(tmp_path):
    for stop in ("'metric': 'auc'", "'early_stopping_round': 0"):
        text = PARAMS_STOP.replace("{stop}", stop)
        assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}, stop


# ------------------------------------------------------------- a monitor a custom callback computes on the fold

NETWORK = """\
    import numpy as np
    import pandas as pd
    from keras.callbacks import Callback, EarlyStopping
    from keras.layers import Dense
    from keras.models import Sequential
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import KFold


    class FoldAuc(Callback):
        def __init__(self, rows, labels):
            self.rows, self.labels = rows, labels

        def on_epoch_end(self, epoch, logs={}):
            guessed_val = self.model.predict(self.rows)
            logs['auc_val'] = roc_auc_score(self.labels, guessed_val)


    sensors = pd.read_csv('sensors.csv')
    X, y = sensors.drop(columns='fault').values, sensors['fault'].values
    for fit_idx, hold_idx in KFold(5, shuffle=True).split(X):
        net = Sequential([Dense(16, activation='relu'), Dense(1, activation='sigmoid')])
        net.compile(optimizer='adam', loss='binary_crossentropy')
        net.fit(X[fit_idx], y[fit_idx], epochs=200, validation_data=(X[hold_idx], y[hold_idx]),
                callbacks=[FoldAuc(X[hold_idx], y[hold_idx]), EarlyStopping(monitor='{monitor}', patience=5)])
        print(roc_auc_score(y[hold_idx], net.predict(X[hold_idx])))
"""


def test_early_stopping_on_a_custom_validation_metric_of_the_scored_fold_is_found(tmp_path):
    text = NETWORK.replace("{monitor}", "auc_val")
    assert ("tuned_on_test", line_of(text, "net.fit(")) in dedented_alarms(tmp_path, text)


def test_early_stopping_on_the_training_loss_is_silent(tmp_path):
    text = NETWORK.replace("{monitor}", "loss")
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ------------------------------------------------- scores of other models are no "other held-out part scored"

BOOSTED_FOLDS = """\
    import numpy as np
    import pandas as pd
    import xgboost as xgb
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import KFold, cross_val_score
    {other}

    claims = pd.read_csv('claims.csv')
    X, y = claims.drop(columns='fraud').values, claims['fraud'].values
    scores = []
    for fit_idx, hold_idx in KFold(5, shuffle=True).split(X):
        X_fit, X_hold, y_fit, y_hold = X[fit_idx], X[hold_idx], y[fit_idx], y[hold_idx]
        booster = xgb.train({'eta': 0.05}, xgb.DMatrix(X_fit, y_fit), 2000,
                            evals=[(xgb.DMatrix(X_hold, y_hold), 'hold')], early_stopping_rounds=60)
        scores.append(roc_auc_score(y_hold, booster.predict(xgb.DMatrix(X_hold))))
    print(np.mean(scores))
    {after}
"""

#: a Keras callback that scores its evaluation rows each epoch (defined, never the script's result)
CALLBACK = """
    from keras.callbacks import Callback


    class EpochAuc(Callback):
        def __init__(self, rows, labels):
            self.rows, self.labels = rows, labels

        def on_epoch_end(self, epoch, logs={}):
            pred_val = self.model.predict(self.rows)
            logs['auc_val'] = roc_auc_score(self.labels, pred_val)
"""

#: a stacking class that fits its own base models and scores its own local hold-out
STACKER = """

    class Stacker:
        def __init__(self, models):
            self.models = models

        def fit_predict(self, X, y):
            firsts = np.zeros((len(y), len(self.models)))
            for fit_idx, part in KFold(3).split(X):
                X_holdout = X[part]
                for j, model in enumerate(self.models):
                    model.fit(X[fit_idx], y[fit_idx])
                    firsts[part, j] = model.predict_proba(X_holdout)[:, 1]
            return cross_val_score(LogisticRegression(), firsts, y, cv=3, scoring='roc_auc').mean()
"""

#: a separate test part, scored after the folds: the stopping folds were validation parts
TEST_SCORED = """
    X_test, y_test = pd.read_csv('claims_2024.csv').drop(columns='fraud').values, None
    y_test = pd.read_csv('claims_2024.csv')['fraud'].values
    final = xgb.train({'eta': 0.05}, xgb.DMatrix(X, y), 400)
    print(roc_auc_score(y_test, final.predict(xgb.DMatrix(X_test))))
"""


def test_a_training_callbacks_own_score_does_not_hide_the_scored_fold(tmp_path):
    text = BOOSTED_FOLDS.replace("{other}", CALLBACK).replace("{after}", "")
    assert ("tuned_on_test", line_of(text, "booster = xgb.train(")) in dedented_alarms(tmp_path, text)


def test_another_models_score_of_its_own_hold_out_does_not_hide_the_scored_fold(tmp_path):
    text = BOOSTED_FOLDS.replace("{other}", STACKER).replace("{after}", "")
    assert ("tuned_on_test", line_of(text, "booster = xgb.train(")) in dedented_alarms(tmp_path, text)


def test_a_separate_test_part_scored_after_the_folds_still_silences(tmp_path):
    text = BOOSTED_FOLDS.replace("{other}", CALLBACK).replace("{after}", TEST_SCORED)
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ------------------------------------------------------------ the fit in a helper, the fold scored by its caller

HELPER = """\
    import lightgbm as lgb
    import numpy as np
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import KFold

    LEARNER = {mode!r}


    def fit_fold(X_fit, y_fit, X_hold, y_hold, X_new):
        model = lgb.LGBMClassifier(n_estimators=5000)
        model.fit(X_fit, y_fit, eval_set=[(X_hold, y_hold)], early_stopping_rounds=100)
        return model.predict_proba(X_new)[:, 1], model.predict_proba(X_hold)[:, 1]


    visits = pd.read_csv('visits.csv')
    X, y = visits.drop(columns='churn'), visits['churn']
    X_new = pd.read_csv('visits_unlabelled.csv')
    for fit_idx, hold_idx in KFold(5, shuffle=True).split(X):
        if LEARNER == 'lightgbm':
            guess_new, guess_hold = fit_fold(X.iloc[fit_idx], y.iloc[fit_idx], X.iloc[hold_idx], y.iloc[hold_idx],
                                             X_new)
            print(roc_auc_score(y.iloc[hold_idx], guess_hold))
"""


def test_a_helper_stopping_on_the_fold_its_caller_scores_is_found(tmp_path):
    text = HELPER.replace("{mode!r}", "'lightgbm'")
    assert ("tuned_on_test", line_of(text, "model.fit(")) in dedented_alarms(tmp_path, text)


def test_the_helper_called_only_under_a_mode_switched_off_is_silent(tmp_path):
    text = HELPER.replace("{mode!r}", "'catboost'")
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


def test_a_caller_scoring_only_what_the_helper_predicts_of_new_rows_is_silent(tmp_path):
    text = HELPER.replace("{mode!r}", "'lightgbm'").replace(
        "print(roc_auc_score(y.iloc[hold_idx], guess_hold))", "print(guess_new.mean())")
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


ESTIMATOR = """\
    import numpy as np
    import pandas as pd
    import catboost as cb
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import KFold


    class FoldedBooster:
        def __init__(self, params):
            self.params = params

        def score_(self, truth, guess):
            return roc_auc_score(truth, guess)

        def fit_(self, X_fit, y_fit, X_eval=None, y_eval=None):
            self.model = cb.CatBoostClassifier(**self.params)
            self.model.fit(X_fit, y_fit, eval_set=[(X_eval, y_eval)], early_stopping_rounds=self.params['patience'])

        def kfold_fit(self, X, y):
            scores = []
            for fit_idx, hold_idx in KFold(5, shuffle=True).split(X):
                X_fit, X_valid = X.iloc[fit_idx], X.iloc[hold_idx]
                y_fit, y_valid = y[fit_idx], y[hold_idx]
                self.fit_(X_fit, y_fit, X_valid, y_valid)
                {scored}
            return scores
"""


def test_an_estimator_method_stopping_on_the_fold_kfold_fit_scores_is_found(tmp_path):
    text = ESTIMATOR.replace("{scored}", "scores.append(self.score_(y_valid, self.model.predict_proba(X_valid)))")
    assert ("tuned_on_test", line_of(text, "self.model.fit(")) in dedented_alarms(tmp_path, text)


def test_the_same_estimator_only_keeping_its_models_is_silent(tmp_path):
    text = ESTIMATOR.replace("{scored}", "scores.append(self.model)")
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ----------------------------------------------------------------- the best score read back from the booster

BEST_READ = """\
    import pandas as pd
    import xgboost as xgb
    from sklearn.model_selection import StratifiedShuffleSplit

    loans = pd.read_csv('loans.csv')
    X, y = loans.drop(columns='default').values, loans['default'].values
    for fit_idx, hold_idx in StratifiedShuffleSplit(3, test_size=0.2).split(X, y):
        d_fit = xgb.DMatrix(X[fit_idx], y[fit_idx])
        d_hold = xgb.DMatrix(X[hold_idx], y[hold_idx])
        booster = xgb.train({'eval_metric': 'auc'}, d_fit, 1500, [(d_fit, 'fit'), (d_hold, 'hold')],
                            early_stopping_rounds=50)
    print('best:', {read})
"""


def test_the_best_score_read_with_attr_is_the_stopping_folds_score(tmp_path):
    for read in ("booster.attr('best_score')", "getattr(booster, 'best_score')"):
        text = BEST_READ.replace("{read}", read)
        assert ("tuned_on_test", line_of(text, "booster = xgb.train(")) in dedented_alarms(tmp_path, text), read


def test_the_best_iteration_read_back_is_silent(tmp_path):
    text = BEST_READ.replace("{read}", "booster.attr('best_iteration')")
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ------------------------------------------------------------------------ one-hot columns over train and test stacked

DUMMIES = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor

    train = pd.read_csv('train.csv')
    test = pd.read_csv('test.csv')
    y = train.pop('price')
    {encode}
    model = RandomForestRegressor().fit(X, y)
    pd.DataFrame({'price': model.predict(X_new)}).to_csv('submission.csv', index=False)
"""

OVER_STACK = """full = pd.concat([train, test])
    full = pd.get_dummies(full, dummy_na=True)
    X, X_new = full[:len(train)], full[len(train):]"""

EACH_ALONE = """X = pd.get_dummies(train)
    X_new = pd.get_dummies(test).reindex(columns=X.columns, fill_value=0)"""


def test_one_hot_columns_made_over_train_and_test_stacked_are_a_fit_on_the_test_rows(tmp_path):
    text = DUMMIES.replace("{encode}", OVER_STACK)
    assert ("fit_on_test", line_of(text, "pd.get_dummies(")) in dedented_alarms(tmp_path, text)


def test_one_hot_columns_made_on_each_table_alone_are_silent(tmp_path):
    assert not dedented_alarms(tmp_path, DUMMIES.replace("{encode}", EACH_ALONE))


# --------------------------------------------- fits on the rows a feature-engineering object keeps on self, then CV

ENGINEER = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.preprocessing import StandardScaler


    class Engineer:
        def __init__(self, train_df, test_df):
            self.train = train_df
            self.test = test_df
            self.refresh_lists()

        def refresh_lists(self):
            self.used_cols = [c for c in self.train.columns if c not in ('id', 'target')]
            self.flag_cols = [c for c in self.used_cols if c.endswith('_bin')]
            self.float_cols = [c for c in self.used_cols if c not in self.flag_cols]

        def scale(self):
            scaler = StandardScaler()
            scaler.fit(self.train[self.float_cols])
            for frame in (self.train, self.test):
                frame[self.float_cols] = scaler.transform(frame[self.float_cols])


    train = pd.read_csv('train.csv')
    test = pd.read_csv('test.csv')
    eng = Engineer(train, test)
    eng.scale()
    train, test = eng.train, eng.test
    {use}
"""

CROSS_VALIDATED = "print(cross_val_score(LogisticRegression(), train[eng.used_cols], train['target'], cv=5).mean())"
ONLY_PREDICTED = """model = LogisticRegression().fit(train[eng.used_cols], train['target'])
    test['target'] = model.predict_proba(test[eng.used_cols])[:, 1]
    test[['id', 'target']].to_csv('submission.csv', index=False)"""


def test_a_scaler_fitted_on_the_rows_an_engineer_keeps_then_cross_validated_is_fit_outside_cv(tmp_path):
    text = ENGINEER.replace("{use}", CROSS_VALIDATED)
    assert ("fit_outside_cv", line_of(text, "scaler.fit(")) in dedented_alarms(tmp_path, text)


def test_the_same_engineer_whose_rows_are_only_used_to_predict_the_test_file_is_silent(tmp_path):
    assert not dedented_alarms(tmp_path, ENGINEER.replace("{use}", ONLY_PREDICTED))
