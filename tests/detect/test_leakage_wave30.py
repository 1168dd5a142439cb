"""The static leakage analysis on the kinds a new wave of public code showed (issue 17, stop 30), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # the two files stacked with the list passed by keyword (pandas names it ``objs``): a statistic of the stack
    # covers the competition test rows the model later scores
    "files_stacked_by_keyword_then_filled": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        both = pd.concat(objs=[shop, later], axis=0)
        both['spend'] = both['spend'].fillna(both['spend'].median())
        known = both[both['label'].notnull()]
        unknown = both[both['label'].isnull()]
        model = Ridge().fit(known.drop(columns=['label']), known['label'])
        model.predict(unknown.drop(columns=['label']))
        """, [("fit_on_test", 4)]),
    # NumPy's stacks name their sequence ``tup``: a scaler fitted on the stack saw the test rows
    "arrays_stacked_by_keyword_then_scaled": ("""\
        A, B, ya, yb = train_test_split(X, y)
        scaler = StandardScaler().fit(np.vstack(tup=(A, B)))
        Ridge().fit(scaler.transform(A), ya).score(scaler.transform(B), yb)
        """, [("fit_on_test", 2)]),
    # a 0/1 feature cut at the table's own median, made by a helper that runs on the test file too: the cut
    # point of the test rows is computed from them (as pd.qcut would be)
    "flag_cut_at_its_own_median_in_a_helper_run_on_test": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        def features(part):
            part = part.copy()
            part['busy'] = (part['visits'] > part['visits'].median()).astype(int)
            return part
        model = Ridge().fit(features(shop).drop(columns=['label']), shop['label'])
        model.predict(features(later))
        """, [("fit_on_test", 5)]),
    # a flag cut at a quantile of every row, then split
    "flag_cut_at_a_quantile_of_all_rows_then_split": ("""\
        table['big_spender'] = table['spend'] > table['spend'].quantile(0.9)
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 1)]),
    # texts cleaned one message at a time (the words rewritten item by item under their own name), the vocabulary
    # learnt from every message, then split
    "vocabulary_of_messages_cleaned_word_by_word_then_split": ("""\
        from sklearn.feature_extraction.text import CountVectorizer
        def stem(word):
            return word[:6]
        notes = []
        for i in range(len(table)):
            words = table['note'][i].lower().split()
            words = [stem(w) for w in words if len(w) > 2]
            notes.append(' '.join(words))
        counts = CountVectorizer(max_features=500).fit_transform(notes).toarray()
        A, B, ya, yb = train_test_split(counts, table['label'])
        LogisticRegression().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 9)]),
}

HEALTHY = {
    # the same stack, filled with the median of the training file alone (taken before stacking)
    "files_stacked_by_keyword_filled_from_the_training_file": ("""\
        shop = pd.read_csv("shop_train.csv")
        later = pd.read_csv("shop_test.csv")
        middle = shop['spend'].median()
        both = pd.concat(objs=[shop, later], axis=0)
        both['spend'] = both['spend'].fillna(middle)
        known = both[both['label'].notnull()]
        unknown = both[both['label'].isnull()]
        model = Ridge().fit(known.drop(columns=['label']), known['label'])
        model.predict(unknown.drop(columns=['label']))
        """),
    # columns joined side by side by keyword (``axis=1``): the rows are the training part's own
    "columns_joined_by_keyword_on_the_training_part": ("""\
        A, B, ya, yb = train_test_split(X, y)
        wide = pd.concat(objs=[A, A.rank()], axis=1)
        scaler = StandardScaler().fit(wide)
        Ridge().fit(scaler.transform(wide), ya).score(scaler.transform(pd.concat(objs=[B, B.rank()], axis=1)), yb)
        """),
    # the cut point taken from the training part and applied to both parts
    "flag_cut_at_the_training_median": ("""\
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        cut = A['visits'].median()
        A['busy'] = A['visits'] > cut
        B['busy'] = B['visits'] > cut
        Ridge().fit(A, ya).score(B, yb)
        """),
    # the comparison makes the target (named through a module constant), not a feature
    "label_cut_at_the_median_named_by_a_constant": ("""\
        GOAL = 'frequent'
        table['frequent'] = (table['visits'] > table['visits'].median()).astype(int)
        target = table[GOAL]
        A, B, ya, yb = train_test_split(table.drop(columns=[GOAL, 'label']), target)
        Ridge().fit(A, ya).score(B, yb)
        """),
    # a row mask built from a statistic: rows are picked, no column is computed from it
    "rows_masked_at_the_median_then_split": ("""\
        table.loc[table['visits'] > table['visits'].median(), 'visits'] = 0
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """),
    # the same cleaned messages split first, the vocabulary learnt from the training messages only
    "vocabulary_of_the_training_messages_cleaned_word_by_word": ("""\
        from sklearn.feature_extraction.text import CountVectorizer
        def stem(word):
            return word[:6]
        notes = []
        for i in range(len(table)):
            words = table['note'][i].lower().split()
            words = [stem(w) for w in words if len(w) > 2]
            notes.append(' '.join(words))
        A, B, ya, yb = train_test_split(notes, table['label'])
        vocab = CountVectorizer(max_features=500).fit(A)
        LogisticRegression().fit(vocab.transform(A), ya).score(vocab.transform(B), yb)
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
