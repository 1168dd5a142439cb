"""A boolean mask named for testing and its complement split the rows in two, for the static leakage analysis.

Used by :class:`~faultlib.detect.data.leakage.masks.MaskIdentity`. Leave-one-group-out evaluations written by hand
hold one season, site or patient group out with a mask and train on the rest with its negation::

    test_mask = (seasons == season).values
    train_mask = ~test_mask
    X_tr, X_te = X[train_mask], X[test_mask]

``~m`` keeps exactly the rows ``m`` drops (pandas user guide, "Boolean indexing": ``~`` is the negation), so the
two selections are the two parts of one split, as ``train_test_split`` would make: the side the script names for
testing is the test part, the other the training part. Knowing that, a later split *inside* the training part (a
random 10% set aside to stop training early) is a split of a training part, which the analysis already leaves
alone (:mod:`~faultlib.detect.data.leakage.validation`), instead of a split of all rows whose held-out part a scaler
fitted on the training side had seen; and a fit on the test side, or on all rows before the masks, is a fit on
held-out rows.

Only a pair is a split: a mask bound to a name for testing (``test_mask``, ``is_test``; see
:func:`~faultlib.detect.data.leakage.vocab.looks_like_test`) and the same mask negated (``~test_mask``, or
``s != v`` beside ``s == v``), as a name bound to it or written in the subscript. A mask without its negation, or
a pair no side of which is named for testing (``valid = ~y.isna()``: rows with a value), stays a plain filter,
unless the mask is drawn at random (``keep = np.random.rand(n) < 0.8``: a shuffled split, its smaller side held
out: :mod:`.randommasks`). A
date cut written both ways (``df.d < c`` beside ``df.d >= c``) is a pair too, its later side the test part
(:mod:`~faultlib.detect.data.leakage.timecuts`).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.randommasks import drawn_fraction
from faultlib.detect.data.leakage.timecuts import date_cut
from faultlib.pyflow.walk import walk_once

Binds = dict[str, list[tuple[int, "ast.expr | None"]]]


def mask_split(index: ast.expr, line: int, binds: Binds, pairs: dict[str, bool]) -> tuple[str, int, str] | None:
    """``(mask text, 0, part)`` when ``index`` (the subscript of ``X[index]`` on ``line``) selects one side of a
    mask pair (:func:`mask_pairs`): ``test`` for the side named for testing, ``train`` for the other.

    Args:
        index: the subscript expression.
        line: the line of the selection.
        binds: every simple binding of the module, ``name -> [(line, value)]`` in line order.
        pairs: :func:`mask_pairs` of the module.
    """
    canon = _canonical(index, line, binds, 2)
    if canon is None or canon[0] not in pairs:
        return None
    text, positive = canon
    return text, 0, "test" if positive == pairs[text] else "train"


def mask_pairs(tree: ast.Module, binds: Binds) -> dict[str, bool]:
    """Masks written both ways, one way under a name for testing: ``text -> polarity of the test-named side``
    (``test_mask = s == v`` beside ``train_mask = ~test_mask`` or ``train_mask = s != v``)."""
    seen: dict[str, set[bool]] = {}
    test_side: dict[str, bool] = {}
    drawn: dict[str, bool] = {}  # a mask drawn at random -> the polarity of its smaller side (randommasks.py)
    for n in walk_once(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        canon = _canonical(n.value, n.lineno + 1, binds, 2)
        if canon is None:
            continue
        seen.setdefault(canon[0], set()).add(canon[1])
        if vocab.looks_like_test(n.targets[0].id):
            test_side[canon[0]] = canon[1]
        share = drawn_fraction(n.value)
        if share is not None:
            drawn[canon[0]] = canon[1] if share < 0.5 else not canon[1]
    for n in walk_once(tree):  # X[~test_mask]: the negation written in place
        if isinstance(n, ast.Subscript):
            canon = _canonical(n.slice, n.lineno, binds, 2)
            if canon is not None:
                seen.setdefault(canon[0], set()).add(canon[1])
    for text in seen:  # a date cut: the side at or after the cut is held out, whatever the names say (timecuts.py)
        if text.find(" <cut> ") > 0:
            test_side[text] = True
    for text, side in drawn.items():  # a random mask: the smaller side is held out unless a name says otherwise
        test_side.setdefault(text, side)
    return {text: side for text, side in test_side.items() if len(seen.get(text, ())) == 2}


def drawn_masks(tree: ast.Module, binds: Binds) -> dict[str, int]:
    """Masks drawn at random (:func:`.randommasks.drawn_fraction`), as the text :func:`mask_split` gives them -> the
    line they are drawn on."""
    out: dict[str, int] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                drawn_fraction(n.value) is not None:
            canon = _canonical(n.value, n.lineno + 1, binds, 2)
            if canon is not None:
                out.setdefault(canon[0], n.lineno)
    return out


def _canonical(node: ast.expr, line: int, binds: Binds, depth: int) -> tuple[str, bool] | None:
    """A boolean mask as ``(text of its positive form, positive?)``: ``~m`` and ``m``, ``a != b`` and ``a == b``
    share the text and differ in polarity (names are followed to what they were bound to before ``line``)."""
    while isinstance(node, ast.Attribute) and node.attr == "values":
        node = node.value
    if isinstance(node, ast.Name):
        before = [b for b in binds.get(node.id, ()) if b[0] < line]
        if not before or before[-1][1] is None or not depth:
            return None
        return _canonical(before[-1][1], before[-1][0], binds, depth - 1)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)) or isinstance(node, ast.Call) \
            and isinstance(node.func, ast.Attribute) and node.func.attr == "logical_not" and len(node.args) == 1:
        inner = _canonical(node.operand if isinstance(node, ast.UnaryOp) else node.args[0], line, binds, depth)
        return (inner[0], not inner[1]) if inner is not None else None
    cut = date_cut(node, line, binds)
    if cut is not None:
        return cut
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        text = ast.unparse(ast.Compare(node.left, [ast.Eq()], node.comparators))
        return text, isinstance(node.ops[0], ast.Eq)
    if _is_boolean(node):
        return ast.unparse(node), True
    return None


def _is_boolean(value: ast.expr) -> bool:
    """``(seasons == s).values``, ``df.site.isin(held)``: a comparison or a membership test, a boolean mask."""
    while isinstance(value, ast.Attribute) and value.attr == "values":
        value = value.value
    return isinstance(value, ast.Compare) or isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr in ("isin", "between", "to_numpy") or isinstance(value, ast.BinOp) and isinstance(
            value.op, (ast.BitAnd, ast.BitOr))


__all__ = ["drawn_masks", "mask_pairs", "mask_split"]
