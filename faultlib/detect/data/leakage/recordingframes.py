"""Frames of one recording stacked as rows, then split row by row, for the static leakage analysis.

Speech and sound programs often keep every analysis frame of a file as one row: MFCC, filter-bank or spectrogram
frames (25 ms windows every 10 ms, so neighbours overlap) of each wav file are stacked under the rows of the files
before, and the file's label is repeated once per frame::

    for wav in os.listdir(folder):
        frames = mfcc(*read(wav))                        # (n_frames, n_coefficients) of this recording
        features = np.vstack((features, frames))
        labels += [label_of(wav)] * frames.shape[0]       # the file's label, once per frame
    X_train, X_test, y_train, y_test = train_test_split(features, labels)

A shuffled row split then sends neighbouring, overlapping frames of the same recording to both sides: the model is
scored on a recording it was trained on (Kapoor & Narayanan, "Leakage and the reproducibility crisis in
machine-learning-based science", Patterns 2023, "non-independence between train and test samples"; scikit-learn user
guide, "Cross-validation iterators for grouped data": samples of one recording are a group). The house rule for
``entity_across_split``, issue 17 wave 94.

:func:`frame_stack_splits` reports each row-wise split (:func:`~.fileentities.row_splits`) of a program in which

* a loop over files (:func:`~.fileentities.file_loops`) stacks a per-file array ``F`` under an accumulator
  (``acc = np.vstack((acc, F))``, ``np.concatenate``/``np.append``/``np.row_stack`` of the two, ``acc.extend(F)``),
  or appends it to a list that the program then stacks row-wise (``parts.append(F)`` ... ``X = np.vstack(parts)``;
  a list kept as one sequence per file, ``pad_sequences(parts)``, is one row per file and stays silent);
* the same loop counts ``F``'s rows (``F.shape[0]``, ``len(F)``): the file gave several rows, and the count repeats
  its label (a per-file vector ``np.mean(mfcc, axis=0)`` stacked once is one row per file and stays silent);
* the split's arguments are the accumulator or a name computed from it, and the program passes no ``groups=`` and
  names no group splitter (a split by file keeps the recording whole).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.fileentities import derived_names, file_loops, grouped, splits_of
from faultlib.detect.data.leakage.targets import node_name
from faultlib.pyflow.walk import walk_once

#: numpy calls that put the rows of their arguments under one another (numpy reference: ``vstack``, ``concatenate``
#: on axis 0, ``append`` with an axis, ``row_stack``)
_STACKS = frozenset({"vstack", "concatenate", "append", "row_stack"})


def _stacked(node: ast.AST) -> tuple[str, str] | None:
    """``(accumulator, per-file array)`` when ``node`` stacks the array's rows under the accumulator's."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
            isinstance(node.value, ast.Call) and node_name(node.value.func) in _STACKS and node.value.args:
        acc = node.targets[0].id
        first = node.value.args[0]
        pieces = list(first.elts) if isinstance(first, (ast.Tuple, ast.List)) else list(node.value.args[:2])
        names = [p.id for p in pieces if isinstance(p, ast.Name)]
        if len(pieces) == 2 and len(names) == 2 and names[0] == acc and names[1] != acc:
            return acc, names[1]
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and node_name(node.value.func) == "extend" and \
            isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) and \
            len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Name):
        return node.value.func.value.id, node.value.args[0].id
    return None


def _appended(node: ast.AST) -> tuple[str, str] | None:
    """``(list, per-file array)`` of ``parts.append(F)``."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and node_name(node.value.func) == "append" and \
            isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) and \
            len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Name):
        return node.value.func.value.id, node.value.args[0].id
    return None


def _stacked_lists(tree: ast.Module) -> dict[str, set[str]]:
    """``list -> the names bound to its rows stacked`` for each ``X = np.vstack(parts)`` (``concatenate``,
    ``row_stack``; ``axis`` 0 or unsaid) of the program."""
    out: dict[str, set[str]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and node_name(n.value.func) in (
                "vstack", "concatenate", "row_stack") and len(n.value.args) == 1 and isinstance(
                n.value.args[0], ast.Name) and not any(k.arg == "axis" and not (
                isinstance(k.value, ast.Constant) and k.value.value == 0) for k in n.value.keywords):
            out.setdefault(n.value.args[0].id, set()).update(
                t.id for t in n.targets if isinstance(t, ast.Name))
    return out


def _counts_rows(loop: ast.For, array: str) -> bool:
    """The loop reads ``array.shape[0]`` or ``len(array)``: how many rows this file gave."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == array and \
                isinstance(node.slice, ast.Constant) and node.slice.value == 0:
            return True
        if isinstance(node, ast.Call) and node_name(node.func) == "len" and len(node.args) == 1 and \
                isinstance(node.args[0], ast.Name) and node.args[0].id == array:
            return True
    return False


def frame_stack_splits(tree: ast.Module) -> list[tuple[int, str, int]]:
    """``(split line, accumulator, line that stacks a file's rows)`` (see the module docstring)."""
    if grouped(tree):
        return []
    out = []
    lists = _stacked_lists(tree)
    for loop in file_loops(tree):
        for node in ast.walk(loop):
            stack = _stacked(node)
            seeds = {stack[0]} if stack is not None else set()
            if stack is None and (stack := _appended(node)) is not None:
                seeds = lists.get(stack[0], set())  # parts.append(F), then X = np.vstack(parts)
            if not seeds or not _counts_rows(loop, stack[1]):  # type: ignore[index]
                continue
            out.extend((split.lineno, stack[0], node.lineno)  # type: ignore[index]
                       for split in splits_of(tree, derived_names(tree, seeds)))
    return sorted(set(out))


def frame_stack_reports(tree: ast.Module, smap: Any) -> list[tuple[int, str, dict[str, Any]]]:
    """:func:`frame_stack_splits` as ``(line, message, evidence)`` of ``entity_across_split`` warnings."""
    return [(line, f"the rows of each file (several per recording, counted to repeat its label) are stacked into "
                   f"{acc} on {smap.describe(stacked_at)} and split row by row on {smap.describe(line)}: frames of "
                   "one recording land on both sides. Fix: split the files (or GroupKFold with the file as group), "
                   "then cut frames", {"columns": [acc], "stacked_at": smap.where(stacked_at)})
            for line, acc, stacked_at in frame_stack_splits(tree)]


__all__ = ["frame_stack_reports", "frame_stack_splits"]
