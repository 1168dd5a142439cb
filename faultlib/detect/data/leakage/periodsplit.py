"""A period of the rows held out: a split in time, for the policy on counts per id (:mod:`.counts`).

Recommender and forecasting code often holds out the last week (month, day) of one table of events with two
selections written both ways on a period column::

    train_rows = rows[rows.week != last]
    valid_rows = rows[rows.week == last]          # (or rows.t_dat < cut / rows.t_dat >= cut)

Each side keeps exactly the rows the other drops (pandas user guide, "Boolean indexing"), and the column they compare
names a period, so the held-out rows are a later stretch of the *same* customers', articles' or stores' events. A
count or total per id computed before such a split (purchases per ``customer_id``, sales per ``article_id``) then
counts each entity's held-out events too: the very purchases the model is scored on predicting. Ji et al., "A
Critical Study on Data Leakage in Recommender System Offline Evaluation" (ACM TOIS 41(3), 2023) show that
features built from interactions of the evaluation period (popularity, activity) inflate offline scores; the
scikit-learn user guide ("Cross-validation of time series data") trains on the past and tests on what follows. So
the analysis reads such a count as a fit (:mod:`.design`), where otherwise a count per id is the entity's own
size (cells per notebook, then notebooks split by group).

What counts, read from the code alone: two subscript selections whose masks compare the same column of the same
table, named for a period (:data:`~.lagged.PERIOD_COLUMN` or :data:`~.vocab.DATE_COLUMN`), with complementary
operators (``==``/``!=``, ``<``/``>=``, ``<=``/``>``) against the same value. A mask on any other column (a subgroup,
``df.age < 30``), or written one way only, is no period held out.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.lagged import PERIOD_COLUMN
from faultlib.pyflow.walk import walk_once

_COMPLEMENT = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.LtE: ast.Gt,
               ast.Gt: ast.LtE}


def _column(node: ast.expr) -> str | None:
    """``t.week`` / ``t['week']``: the column name read from a table."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def _period_mask(node: ast.expr) -> tuple[str, type, str] | None:
    """``(table and column text, operator, value text)`` of a comparison of a period column with one value."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPLEMENT):
        return None
    column = _column(node.left)
    if column is None or not (PERIOD_COLUMN.search(column) or vocab.DATE_COLUMN.search(column)):
        return None
    return ast.unparse(node.left), type(node.ops[0]), ast.unparse(node.comparators[0])


def holds_out_a_period(tree: ast.Module) -> bool:
    """The module selects the rows of a period and the rest of them (see the module docstring)."""
    seen: set[tuple[str, type, str]] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Subscript) and (mask := _period_mask(n.slice)) is not None:
            if (mask[0], _COMPLEMENT[mask[1]], mask[2]) in seen:
                return True
            seen.add(mask)
    return False


__all__ = ["holds_out_a_period"]
