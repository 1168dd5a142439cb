"""Sliding windows cut from a series, for the static leakage analysis's ``shuffled_time_split``.

``for i in range(len(s) - n): X.append(s[i:i + n]); y.append(s[i + n])`` turns one series into overlapping
windows: window ``i + 1`` repeats all but one value of window ``i``, and the value one window predicts sits inside
the next windows. Split with shuffling (``train_test_split``'s default), the training windows contain the test
windows' targets and their future: the same leak as lag features split with shuffling (scikit-learn user guide,
"Cross-validation of time series data": use ``TimeSeriesSplit``).

A window is a slice ``a[i:i + k]`` whose start is the variable of an enclosing ``for`` loop over ``range`` with a
step of 1 (consecutive starts: the windows overlap when ``k > 1``). Mini-batches (``range(0, n, batch)``, a step as
large as the slice) do not overlap and are not windows; a slice of one item (``i:i + 1``) is a row.

Signal code cuts a recording into windows with a hop that is a fraction of the window (issue 17 wave 84: vibration
recordings in 1024-sample windows at 50% overlap)::

    hop = int(width * (1.0 - overlap))
    starts = range(0, len(sig) - width + 1, hop)
    windows = np.stack([sig[s:s + width] for s in starts])

Consecutive windows share ``width - hop`` samples, so they overlap as the step-1 windows do. Also windows, then: a
slice whose start is the variable of a ``for`` loop or of a comprehension's one ``for``, over ``range`` (written
there or bound once to a name) whose step is written as a fraction of the slice's width: ``width * (1 - o)``,
``width * f`` with ``0 < f < 1``, ``width // d`` or ``width / d`` with ``d > 1``, ``width - o`` (each possibly
inside ``int``/``round``, the step bound once to a name). A hop and a width that are both numbers, written out or
bound once to names, overlap when the hop is the smaller (issue 17 wave 91: WESAD sensor series in 100-sample
windows every 20 samples, ``N_TIME_STEPS = 100; step = 20``). A hop not written from the width and compared with no
known width (``range(0, n, 512)`` over ``s[i:i + w]``) is not read: its overlap is not known.

The slice may be written two more ways (issue 17 wave 86: EEG and EMG recordings cut in helpers): its end bound to a
name first in the loop's body (``end = start + width`` then ``sig[start:end]``, the name bound there once), and the
window cut along the samples of a channels-first recording (``eeg[:, start:start + width]``: a slice of the index
tuple, NumPy's basic slicing of one axis, the other axes whole).

The bounds may also come from a generator of the module (issue 17 wave 91: WISDM accelerometer series in 90-sample
windows at 50% overlap)::

    def windows(series, size):
        start = 0
        while start < series.count():
            yield int(start), int(start + size)
            start += size / 2

    for (start, end) in windows(df['timestamp'], 90):
        x = df['x-axis'][start:end]

A function that yields ``(start, start + width)`` (each possibly inside ``int``/``round``) while its start advances
by ``start += hop`` or runs over a ``range``, the hop overlapping as above, makes ``a[start:end]`` under ``for start,
end in gen(...)`` a window.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def _step_one_range(node: ast.expr) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"):
        return False
    if len(node.args) < 3:
        return True
    step = node.args[2]
    return isinstance(step, ast.Constant) and step.value == 1


def _once(tree: ast.Module) -> dict[str, ast.expr]:
    """Names assigned exactly once in the module (a plain ``name = value``), with their value."""
    seen: dict[str, list[ast.expr]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            seen.setdefault(n.targets[0].id, []).append(n.value)
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def _resolved(node: ast.expr | None, once: dict[str, ast.expr]) -> ast.expr | None:
    if isinstance(node, ast.Name) and node.id in once:
        return once[node.id]
    return node


def _fraction_of(step: ast.expr | None, width: ast.expr, once: dict[str, ast.expr]) -> bool:
    """``step`` is written as a fraction of ``width`` (see the module docstring)."""
    step = _resolved(step, once)
    while isinstance(step, ast.Call) and isinstance(step.func, ast.Name) and step.func.id in ("int", "round") \
            and step.args:
        step = step.args[0]
    if not isinstance(step, ast.BinOp):
        return False
    same = ast.dump(width)

    def is_width(n: ast.expr) -> bool:
        return ast.dump(n) == same

    def below_one(n: ast.expr) -> bool:  # (1 - o), (1.0 - o), or a constant between 0 and 1
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return 0 < n.value < 1
        return isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and isinstance(n.left, ast.Constant) and \
            n.left.value == 1
    if isinstance(step.op, ast.Mult):
        return is_width(step.left) and below_one(step.right) or is_width(step.right) and below_one(step.left)
    if isinstance(step.op, (ast.FloorDiv, ast.Div)):
        return is_width(step.left) and isinstance(step.right, ast.Constant) and isinstance(
            step.right.value, (int, float)) and step.right.value > 1
    if isinstance(step.op, ast.Sub):
        return is_width(step.left) and not (isinstance(step.right, ast.Constant) and not step.right.value)
    return False


def _count(node: ast.expr | None, once: dict[str, ast.expr]) -> int | None:
    """A positive whole number written out or bound once to a name (``N_TIME_STEPS = 100``), else ``None``."""
    node = _resolved(node, once)
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool) \
            and node.value > 0:
        return node.value
    return None


def _shorter_hop(step: ast.expr, width: ast.expr, once: dict[str, ast.expr]) -> bool:
    """``step`` and ``width`` are both numbers written out (or bound once to names), the step the smaller: the
    windows overlap by ``width - step`` samples."""
    hop, size = _count(step, once), _count(width, once)
    return hop is not None and size is not None and hop < size


def _overlapping_starts(iterable: ast.expr, width: ast.expr, once: dict[str, ast.expr]) -> bool:
    """The starts ``range(...)`` (written, or bound once to a name) step by 1, by a fraction of ``width``, or by a
    number smaller than a width that is a number too."""
    node = _resolved(iterable, once)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"):
        return False
    return _step_one_range(node) or len(node.args) >= 3 and (
        _fraction_of(node.args[2], width, once) or _shorter_hop(node.args[2], width, once))


def _ends(body: list[ast.stmt], var: str) -> dict[str, ast.expr]:
    """Names the loop's body binds once, and only, to ``var + k`` (``end = start + width``) -> that sum."""
    seen: dict[str, list[ast.expr]] = {}
    for n in (c for stmt in body for c in ast.walk(stmt)):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    seen.setdefault(t.id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
            seen.setdefault(n.target.id, []).extend([n.target, n.target])
    return {k: v[0] for k, v in seen.items() if len(v) == 1 and isinstance(v[0], ast.BinOp) and isinstance(
        v[0].op, ast.Add) and any(isinstance(side, ast.Name) and side.id == var for side in (v[0].left, v[0].right))}


def _window_slice(n: ast.Subscript) -> ast.Slice | None:
    """The slice of ``a[lo:hi]``, or the one slice of a channels-first ``a[:, lo:hi]`` (the other items whole)."""
    if isinstance(n.slice, ast.Slice):
        return n.slice
    if isinstance(n.slice, ast.Tuple):
        cut = [e for e in n.slice.elts if isinstance(e, ast.Slice) and (e.lower or e.upper)]
        whole = [e for e in n.slice.elts if isinstance(e, ast.Slice) and not (e.lower or e.upper or e.step)]
        if len(cut) == 1 and len(cut) + len(whole) == len(n.slice.elts):
            return cut[0]
    return None


def _cut_at(n: ast.AST, var: str, ends: dict[str, ast.expr] | None = None) -> ast.expr | None:
    """The width ``k`` of a slice ``a[var:var + k]`` (``k`` not 1; the end may be a name of ``ends``, the slice one
    item of the index: :func:`_window_slice`), else ``None``."""
    cut = _window_slice(n) if isinstance(n, ast.Subscript) else None
    if cut is None:
        return None
    lo, hi = cut.lower, cut.upper
    if isinstance(hi, ast.Name) and ends and hi.id in ends:
        hi = ends[hi.id]
    if not (isinstance(lo, ast.Name) and lo.id == var and isinstance(hi, ast.BinOp)
            and isinstance(hi.op, ast.Add) and cut.step is None):
        return None
    other = hi.right if isinstance(hi.left, ast.Name) and hi.left.id == var else hi.left \
        if isinstance(hi.right, ast.Name) and hi.right.id == var else None
    return None if other is None or isinstance(other, ast.Constant) and other.value == 1 else other


def _unwrapped(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "round") \
            and len(node.args) == 1:
        node = node.args[0]
    return node


def _yields_bounds(fn: ast.FunctionDef) -> bool:
    """``fn`` yields ``(start, start + width)`` pairs whose starts overlap: a ``while`` loop advancing the start by
    ``start += hop`` or a ``for start in range(...)``, the hop a fraction of the width or a smaller number (see the
    module docstring)."""
    once: dict[str, ast.expr] | None = None
    for y in (n for n in ast.walk(fn) if isinstance(n, ast.Yield)):
        if not (isinstance(y.value, ast.Tuple) and len(y.value.elts) == 2):
            continue
        lo, hi = (_unwrapped(e) for e in y.value.elts)
        if not (isinstance(lo, ast.Name) and isinstance(hi, ast.BinOp) and isinstance(hi.op, ast.Add)):
            continue
        width = hi.right if isinstance(hi.left, ast.Name) and hi.left.id == lo.id else hi.left \
            if isinstance(hi.right, ast.Name) and hi.right.id == lo.id else None
        if width is None or isinstance(width, ast.Constant) and width.value == 1:
            continue
        once = _once(fn) if once is None else once  # type: ignore[arg-type]
        for n in ast.walk(fn):
            if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name) and \
                    n.target.id == lo.id and (_fraction_of(n.value, width, once) or _shorter_hop(n.value, width, once)):
                return True
            if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and n.target.id == lo.id and (
                    _step_one_range(n.iter) or _overlapping_starts(n.iter, width, once)):
                return True
    return False


def _bounds_loops(tree: ast.Module) -> list[tuple[ast.For, str, str]]:
    """``for (start, end) in gen(...)`` loops over a function of the module that yields overlapping window bounds
    (:func:`_yields_bounds`), with the two names."""
    gens = {n.name for n in walk_once(tree) if isinstance(n, ast.FunctionDef) and _yields_bounds(n)}
    out = []
    for loop in walk_once(tree) if gens else ():
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 and all(
                isinstance(e, ast.Name) for e in loop.target.elts) and isinstance(loop.iter, ast.Call) and isinstance(
                loop.iter.func, ast.Name) and loop.iter.func.id in gens:
            lo, hi = loop.target.elts
            out.append((loop, lo.id, hi.id))  # type: ignore[attr-defined]
    return out


def window_starts(tree: ast.Module) -> dict[int, str]:
    """``id`` of each slice node ``a[i:i + k]`` (``k`` not 1) inside a ``for i in range(...)`` loop (or a
    comprehension's one ``for``) whose starts overlap (see the module docstring) -> the loop variable's name; and of
    each ``a[start:end]`` inside ``for start, end in gen(...)`` over a generator of overlapping bounds."""
    out: dict[int, str] = {}
    once: dict[str, ast.expr] | None = None
    for loop, lo, hi in _bounds_loops(tree):
        for n in (c for stmt in loop.body for c in ast.walk(stmt)):
            cut = _window_slice(n) if isinstance(n, ast.Subscript) else None
            if cut is not None and isinstance(cut.lower, ast.Name) and cut.lower.id == lo and isinstance(
                    cut.upper, ast.Name) and cut.upper.id == hi and cut.step is None:
                out[id(n.slice)] = lo  # type: ignore[attr-defined]
    for loop in walk_once(tree):
        ends: dict[str, ast.expr] = {}
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name):
            var, iterable = loop.target.id, loop.iter
            body = [n for stmt in loop.body for n in ast.walk(stmt)]
            ends = _ends(loop.body, var)
        elif isinstance(loop, (ast.ListComp, ast.GeneratorExp)) and len(loop.generators) == 1 and isinstance(
                loop.generators[0].target, ast.Name):
            var, iterable = loop.generators[0].target.id, loop.generators[0].iter
            body = list(ast.walk(loop.elt))
        else:
            continue
        step_one = _step_one_range(iterable)
        for n in body:
            width = _cut_at(n, var, ends)
            if width is None:
                continue
            if not step_one:
                once = _once(tree) if once is None else once
                if not _overlapping_starts(iterable, width, once):
                    continue
            out[id(n.slice)] = var  # type: ignore[attr-defined]
    return out


def _is_range(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def positional_items(node: ast.ListComp | ast.SetComp | ast.GeneratorExp,
                     bindings: dict[str, list[ast.expr]] | None = None) -> bool:
    """A comprehension over positions whose item is a piece of one array cut at that position:
    ``[s[i - w:i] for i in range(w, len(s))]`` (windows) or ``[s[i, 0] for i in range(len(s))]`` (rows). Like the
    list built by ``append`` in a ``for i in range(...)`` loop (:mod:`.frames`), its items keep the rows they were
    cut from, in order, so a slice of the list (``xs[-50:]``) is that part of the array. The positions may be a
    name every binding of which (``bindings``: name -> values) is a ``range`` (``starts = range(0, n, hop)``)."""
    gen = node.generators[0] if len(node.generators) == 1 else None
    if gen is None or gen.ifs or not isinstance(gen.target, ast.Name):
        return False
    ranged = _is_range(gen.iter) or isinstance(gen.iter, ast.Name) and bool(bindings) and bool(
        bindings.get(gen.iter.id)) and all(_is_range(b) for b in bindings[gen.iter.id])  # type: ignore[union-attr]
    if not ranged:
        return False
    elt = node.elt
    return isinstance(elt, ast.Subscript) and any(
        isinstance(n, ast.Name) and n.id == gen.target.id for n in ast.walk(elt.slice))


__all__ = ["positional_items", "window_starts"]
