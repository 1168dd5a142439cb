"""Row masks written twice, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``tree``). A boolean mask selects the
rows for which it is true (pandas user guide, "Boolean indexing"): the same expression over the same table,
written twice before anything changes it, keeps the same rows. Scripts do this when they prepare one matrix for a
feature ranking and another for the model (``valid = ~y.isna(); X = X[valid]`` ... later ``ok = ~y2.isna();
X2 = X2[ok]`` with ``y`` and ``y2`` both ``df['value'].ffill()``): the ranking saw the rows the model's split
then holds out. Each name in a mask is replaced by the expression it was last bound to before that line (three
levels deep); two masks whose expanded text is the same are one row selection. A name bound by a ``for`` loop,
or one never bound in the module, keeps its own text, so masks inside a loop over columns never match by
accident unless their text is the same too.

A test-named mask and its negation are the exception: together they split the rows (:mod:`.maskpairs`). A mask
of the label against a constant keeps one class's rows of every part (:mod:`.classfilters`): its step says so.

A mask is not a part of the rows either: ``valid = ~y.isna()`` names the rows with a valid value, not a validation
set, so the name does not make it held out. Nor are the rows a validity flag keeps: ``valid_temp =
raw[raw["Temp_valid"]]`` (a weather cleaning notebook of wave 90 flags implausible readings, then keeps the others)
names the readings that passed the check; the name repeats the flag's word, also through a call that keeps the same
rows (``X_valid = X[valid_mask].copy()``). Rows chosen by comparing a column with
the word (``df[df.fold == "valid"]``) stay a validation part.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.classfilters import class_mask, label_names
from faultlib.detect.data.leakage.maskpairs import drawn_masks, mask_pairs, mask_split
from faultlib.detect.data.leakage.values import Step, new_id
from faultlib.detect.data.leakage.vocab import name_tokens
from faultlib.pyflow.walk import walk_once


class MaskIdentity:
    """Filters by the same written mask are the same rows (see the module docstring)."""

    def _filter_step(self, index_node: ast.expr, line: int) -> Step:
        """The row selection ``data[index_node]`` makes: a fresh one, or the one an identical mask made."""
        if not hasattr(self, "_mask_steps"):
            self._mask_steps: dict[str, Step] = {}
            self._mask_bindings = _line_bindings(self.tree)
            self._mask_splits: dict[tuple[str, int], int] = {}
            self._pairs = mask_pairs(self.tree, self._mask_bindings)
            self._drawn_steps: dict[int, int] = {}  # a split by a random mask -> the line of the mask
        pair = mask_split(index_node, line, self._mask_bindings, self._pairs)  # test_mask / ~test_mask (maskpairs)
        if pair is not None:
            ident = self._mask_splits.setdefault(pair[:2], new_id())
            if not hasattr(self, "_drawn_masks"):
                self._drawn_masks = drawn_masks(self.tree, self._mask_bindings)
            if pair[0] in self._drawn_masks:
                self._drawn_steps[ident] = self._drawn_masks[pair[0]]
            return Step("split", ident, pair[2], line=line)
        part = "class" if self._class_mask(index_node, line) else None  # y_all == 1: one class's rows (classfilters)
        text = _expanded(index_node, line, self._mask_bindings, 3)
        if text is None:
            return Step("filter", new_id(), part, line=line)
        if text not in self._mask_steps:
            self._mask_steps[text] = Step("filter", new_id(), part, line=line)
        return self._mask_steps[text]

    def _drawn_split_design(self, data: Any, step: Step, frame: Any) -> None:
        """A split by a random mask (:mod:`.randommasks`) is a shuffled split: its design is checked as
        ``train_test_split``'s is (overlapping windows or lag features on both sides), at the mask's line."""
        line = getattr(self, "_drawn_steps", {}).get(step.ident) if step.kind == "split" else None
        if line is not None:
            self._check_split_design([data], {}, line, frame, "a random mask")  # type: ignore[attr-defined]

    def _class_mask(self, index_node: ast.expr, line: int) -> bool:
        if not hasattr(self, "_class_labels"):
            self._class_labels = label_names(self.tree, set(getattr(self, "_label_columns", ())))
        return line not in getattr(self, "_bare_label_lines", ()) and class_mask(
            index_node, self._class_labels, set(getattr(self, "_targets", ())))

    def _binds_a_mask(self, name: str, line: int) -> bool:
        """``valid = ~y.isna()`` on ``line``: a boolean mask (rows with a value), not rows named for validation."""
        if not hasattr(self, "_mask_names"):
            self._mask_names = {(t.id, n.lineno) for n in walk_once(self.tree) if isinstance(n, ast.Assign)
                                for t in n.targets if isinstance(t, ast.Name) and (_is_mask(n.value) or (
                                    _flagged_rows(n.value) and _VALIDITY & set(name_tokens(t.id))))}
        return (name, line) in self._mask_names


_MASK_METHODS = frozenset({"isna", "isnull", "notna", "notnull", "isin", "between", "duplicated"})


def _is_mask(value: ast.expr) -> bool:
    """``~y.isna()``, ``df.a > 0``, ``(a > 0) & b.notna()``: an expression whose value is a boolean row mask."""
    if isinstance(value, ast.Compare):
        return True
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.Invert, ast.Not)):
        return _is_mask(value.operand)
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_mask(value.left) or _is_mask(value.right)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _MASK_METHODS


_VALIDITY = frozenset({"valid"})


def _validity_flag(node: ast.expr) -> bool:
    """``raw["Temp_valid"]``, ``df.is_valid``, ``valid_mask``, ``raw["valid"] == True``: a flag named for validity."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq) and isinstance(
            node.comparators[0], ast.Constant) and node.comparators[0].value in (True, 1):
        node = node.left
    word = node.slice.value if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) else \
        node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    return isinstance(word, str) and bool(set(name_tokens(word)) & _VALIDITY)


#: methods that return the same rows they are called on (pandas: a copy, a renumbered index, a cast): the rows a
#: validity flag kept stay those rows through them (``X[valid_mask].copy()``)
_SAME_ROWS = frozenset({"copy", "reset_index", "astype", "to_numpy"})


def _flagged_rows(value: ast.expr) -> bool:
    """``raw[raw["Temp_valid"]][["DATE", "Temp_C"]]``, ``X[valid_mask].copy()``: the rows of a table a validity flag
    keeps (a wave-95 air-quality notebook keeps the rows with a model prediction, ``X_valid = X[valid_mask].copy()``,
    then splits them into training and test parts)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _SAME_ROWS:
        value = value.func.value
    while isinstance(value, ast.Subscript):
        if _validity_flag(value.slice):
            return True
        value = value.value
    return False


def _line_bindings(tree: ast.Module) -> dict[str, list[tuple[int, ast.expr | None]]]:
    """``name -> [(line, value)]`` of every simple assignment (``None`` for a ``for`` target or an augmented one)."""
    out: dict[str, list[tuple[int, ast.expr | None]]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                pairs = zip(t.elts, n.value.elts) if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and \
                    len(t.elts) == len(n.value.elts) else [(t, n.value)]  # a, b = x, y: each its own value
                for target, value in pairs:
                    for name in (e for e in ast.walk(target) if isinstance(e, ast.Name)):
                        out.setdefault(name.id, []).append((n.lineno, value if target is name else None))
        elif isinstance(n, (ast.For, ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.comprehension)):
            target = n.target
            for name in (e for e in ast.walk(target) if isinstance(e, ast.Name)):
                out.setdefault(name.id, []).append((getattr(n, "lineno", 0), None))
    for binds in out.values():
        binds.sort(key=lambda b: b[0])
    return out


def _expanded(node: ast.expr, line: int, binds: dict[str, list[tuple[int, ast.expr | None]]], depth: int
              ) -> str | None:
    """``node``'s text with each name replaced by what it was last bound to before ``line``; ``None`` when the
    mask is a bare name nothing expands (its rows cannot be told apart from any other's)."""
    if isinstance(node, ast.Name):
        before = [b for b in binds.get(node.id, ()) if b[0] < line]
        if not before or before[-1][1] is None or not depth:
            return None
        return _expanded(before[-1][1], before[-1][0], binds, depth - 1)
    if not any(isinstance(n, (ast.Compare, ast.UnaryOp, ast.Call)) for n in ast.walk(node)):
        return None  # not a mask (a slice, a constant, a list of positions)

    class Expand(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> Any:
            before = [b for b in binds.get(name.id, ()) if b[0] < line]
            if depth and before and before[-1][1] is not None and not isinstance(before[-1][1], ast.Name) and any(
                    isinstance(n, (ast.Subscript, ast.Call, ast.Attribute)) for n in ast.walk(before[-1][1])):
                text = _expanded(before[-1][1], before[-1][0], binds, depth - 1) or ast.unparse(before[-1][1])
                return ast.Name(id=f"({text})", ctx=ast.Load())
            return name

    return ast.unparse(Expand().visit(ast.parse(ast.unparse(node), mode="eval")).body)


__all__ = ["MaskIdentity"]
