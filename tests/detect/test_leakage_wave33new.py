"""The static leakage analysis on the kinds wave 33new of public code showed (issue 17, stop 33), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from faultlib.detect.data.leakage.py2print import rewrite_print
from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # Python 2: a print statement that continues over two lines inside the function that scales and scores; the
    # function was skipped whole ("invalid syntax"), so the scaling before the split went unseen
    "python2_print_over_two_lines_in_the_function_that_scales": ("""\
        def run(frame, target):
            Z = (frame - frame.mean()) / frame.std()
            A, B, ya, yb = train_test_split(Z, target)
            print "R2 %.3f on %d rows" % (
                Ridge().fit(A, ya).score(B, yb), len(B))
        run(X, y)
        """, [("fit_before_split", 2)]),
    # Python 2: a print over two lines ending in a comma (no newline), then the search over rows scaled beforehand
    "python2_print_with_trailing_comma_then_search_over_scaled_rows": ("""\
        import sys
        def tune(frame, target):
            print "tuning on", (
                len(frame)),
            Z = frame / frame.max()
            GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}).fit(Z, target)
        tune(X, y)
        """, [("fit_outside_cv", 5)]),
}

HEALTHY = {
    # Python 2 prints around a split-first scaling: still silent once the function is read
    "python2_print_over_two_lines_split_first": ("""\
        def run(frame, target):
            A, B, ya, yb = train_test_split(frame, target)
            mu, sd = A.mean(), A.std()
            print "R2 %.3f" % (
                Ridge().fit((A - mu) / sd, ya).score((B - mu) / sd, yb))
        run(X, y)
        """),
    # the statistic is taken only in the branch for the training part; the held-out part's call skips it
    "statistic_only_in_the_branch_for_the_training_part": ("""\
        stats = {}
        def prep(d, part):
            if part == 'train':
                stats['mu'] = d.mean()
            return d - stats['mu']
        A, B, ya, yb = train_test_split(X, y)
        Ridge().fit(prep(A, 'train'), ya).score(prep(B, 'test'), yb)
        """),
    # `!=` the same way: the branch that runs for the held-out part computes nothing
    "statistic_skipped_for_the_held_out_part_with_not_equal": ("""\
        stats = {}
        def prep(d, part):
            if part != 'test':
                stats['sd'] = d.std()
            return d / stats['sd']
        A, B, ya, yb = train_test_split(X, y)
        Ridge().fit(prep(A, 'train'), ya).score(prep(B, 'test'), yb)
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert sorted(set(alarms(tmp_path, body))) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


@pytest.mark.parametrize(("lines", "start", "expected"), [
    (['print "a", b  # note'], 1, ['print("a", b)  # note']),
    (['    print x,'], 1, ['    print(x)']),
    (['print >>f, "x"'], 1, ['print("x")']),
    (['print "a %d" % (', '    n)', 'y = 1'], 1, ['print("a %d" % (', '    n))', 'y = 1']),
    (['print "a" + \\', '    b'], 1, ['print("a" + \\', '    b)']),
])
def test_python2_print_rewritten_keeping_every_line(lines, start, expected):
    assert rewrite_print(lines, start) is True
    assert lines == expected


@pytest.mark.parametrize("line", ["print(x)", "print = 3", "x = 1", "print", "print  # a comment"])
def test_python2_rewrite_leaves_other_lines(line):
    lines = [line]
    assert rewrite_print(lines, 1) is False
    assert lines == [line]
