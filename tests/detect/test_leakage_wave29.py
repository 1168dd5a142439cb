"""The static leakage analysis on the kinds a new wave of public code showed (issue 17, stop 29), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # a helper gets the module's frame as its argument, writes the capped column through the module's name and
    # returns its argument: what it returns is the capped frame (one frame, two names)
    "capped_through_the_global_name_returned_as_the_argument": ("""\
        def cap(part, col):
            low, high = part[col].quantile(0.05), part[col].quantile(0.95)
            table[col] = part[col].clip(low, high)
            return part
        capped = cap(table, 'age')
        A, B, ya, yb = train_test_split(capped.drop(columns=['label']), capped['label'])
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),  # two quantiles in one statement: one finding
    # ... called in a loop over literal column names by a second helper that returns the last result
    "capped_in_a_loop_of_a_second_helper": ("""\
        def cap(part, col):
            spread = part[col].quantile(0.9) - part[col].quantile(0.1)
            table[col] = part[col].clip(upper=spread * 3)
            return part
        def cap_all(frame, cols):
            for c in cols:
                out = cap(frame, c)
            return out
        capped = cap_all(table, ['age', 'visits', 'spend'])
        A, B, ya, yb = train_test_split(capped.drop(columns=['label']), capped['label'])
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),
    # the other direction: the helper writes through its parameter, the module goes on with its own name
    "filled_through_the_parameter_read_through_the_global": ("""\
        def fill(part):
            part['age'] = part['age'].fillna(part['age'].median())
        fill(table)
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """, [("fit_before_split", 2)]),
    # column names built from .columns travel through two helpers' parameters: part[col] selects a column, so
    # the quantiles are of every row the later cross-validation scores (not of a row subset)
    "column_names_through_helper_parameters_then_cv": ("""\
        numeric = [c for c in table.columns if table[c].dtype != 'O']
        def cap(part, col):
            top = part[col].quantile(0.99)
            table[col] = part[col].clip(upper=top)
            return part
        def cap_all(frame, cols):
            for c in cols:
                out = cap(frame, c)
            return out
        capped = cap_all(table, numeric)
        print(cross_val_score(Ridge(), capped.drop(columns=['label']), capped['label'], cv=5).mean())
        """, [("fit_outside_cv", 3)]),
}

HEALTHY = {
    # the same helper, called after the split on the training part only
    "capped_after_the_split_on_the_training_part": ("""\
        A, B, ya, yb = train_test_split(X, y)
        def cap(part, col):
            low, high = part[col].quantile(0.05), part[col].quantile(0.95)
            A[col] = part[col].clip(low, high)
            return part
        capped = cap(A, 'age')
        Ridge().fit(capped, ya).score(B, yb)
        """),
    # a copy is changed, the untouched original is split
    "a_copy_capped_the_original_split": ("""\
        def cap(part, col):
            low, high = part[col].quantile(0.05), part[col].quantile(0.95)
            shown[col] = part[col].clip(low, high)
            return part
        shown = table.copy()
        cap(shown, 'age')
        A, B, ya, yb = train_test_split(table.drop(columns=['label']), table['label'])
        Ridge().fit(A, ya).score(B, yb)
        """),
    # fences computed and printed only (outliers listed, nothing clipped)
    "fences_printed_only": ("""\
        def fences(part, col):
            q1, q3 = part[col].quantile(0.25), part[col].quantile(0.75)
            print(col, q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1))
            return part
        same = fences(table, 'age')
        A, B, ya, yb = train_test_split(same.drop(columns=['label']), same['label'])
        Ridge().fit(A, ya).score(B, yb)
        """),
    # the same helpers with a boolean mask for a parameter: part[rows] selects rows, their quantile is of a subset
    # the cross-validation does not score (the old reading, kept where the argument is not column names)
    "row_mask_through_a_helper_parameter_then_cv_of_other_rows": ("""\
        def top_of(part, rows):
            return part[rows]['age'].quantile(0.99)
        adults = table['age'] > 17
        limit = top_of(table, adults)
        children = table[table['age'] <= 17]
        print(cross_val_score(Ridge(), children.drop(columns=['label']), children['label'], cv=5).mean(), limit)
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
