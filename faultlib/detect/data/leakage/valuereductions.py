"""Reductions that compute no statistic over rows, for the static leakage analysis: the union of the kinds of
:mod:`.cellstats` (a reduction of single cells) and :mod:`.fillcodes` (a missing-value code placed past the
range). :mod:`.design` asks once per program and leaves the named calls out of its hand-written fits.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.cellstats import cell_reductions
from faultlib.detect.data.leakage.fillcodes import fill_code_reductions


def value_reductions(tree: ast.Module) -> frozenset[int]:
    """Ids of the reduction calls in ``tree`` that are no fit (see the modules named in the module docstring)."""
    return cell_reductions(tree) | fill_code_reductions(tree)


__all__ = ["value_reductions"]
