"""Subjects named in file names, dropped before a row-wise split, for the static leakage analysis.

EEG, EMG and ECG projects keep one file per recording and name each file after its subject and its session::

    for path in sorted(glob.glob(os.path.join(folder, "*.edf"))):
        parts = os.path.basename(path).replace(".edf", "").split("_")    # Subject07_2.edf
        subject_id = int(parts[0].replace("Subject", ""))
        condition = int(parts[1]) - 1                                  # rest or task: the label
        recordings.append((subject_id, condition, mne.io.read_raw_edf(path)))
    ...
    for subject_id, condition, raw in recordings:                      # the subject is dropped here
        X.append(features(raw)); y.append(condition)
    for tr, te in StratifiedKFold(10, shuffle=True).split(X, y): ...

Each subject has several files (the file name carries a second field beside the subject: a session, a condition,
a run), so each subject has several rows, and a split row by row puts one subject's recordings on both sides: the
model is scored on a person it was trained on (issue 17, wave 86; Kapoor & Narayanan, "Leakage and the
reproducibility crisis in machine-learning-based science", Patterns 2023, the "non-independence between train and
test samples" class; the house rule for ``entity_across_split``). The table-mode rule needs a ``groupby`` over an
entity column (:mod:`.design`); here the id never becomes a column.

:func:`file_entity_splits` reports every row-wise split (``train_test_split``, ``KFold``/``StratifiedKFold``/
``ShuffleSplit`` ``.split``, ``cross_val_score``/``cross_validate``/``cross_val_predict``) of a program in which:

* a loop over files (``glob``, ``listdir``, ``iterdir``, or a name bound to one) parses a name for an entity
  (:data:`~.vocab.ENTITY_COLUMN`: ``subject_id``, ``patient_id``, ``participant``) from one field of the file
  name (``parts[0]``) and another variable from another field of the same split (``parts[1]``);
* the entity is read nowhere but inside a tuple or list appended to a list (the record of each file), and a loop
  that unpacks such records binds the entity's place to a name it never reads (or ``_``): the id is dropped;
* and the program uses no group splitter and passes no ``groups=`` anywhere (a grouped evaluation keeps it).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.reportedlines import split_findings
from faultlib.detect.data.leakage.targets import node_name
from faultlib.findings import Finding
from faultlib.pyflow.walk import walk_once

_LISTINGS = frozenset({"glob", "iglob", "listdir", "iterdir", "rglob", "scandir"})
_WRAPPERS = frozenset({"sorted", "tqdm", "list", "enumerate", "reversed"})
_ROW_SPLITTERS = frozenset({"KFold", "StratifiedKFold", "ShuffleSplit", "StratifiedShuffleSplit", "RepeatedKFold",
                            "RepeatedStratifiedKFold"})
_CV_CALLS = frozenset({"cross_val_score", "cross_validate", "cross_val_predict"})


def _listing(node: ast.expr, listed: set[str]) -> bool:
    """``node`` is a listing of files (``sorted(glob.glob(...))``, ``tqdm(os.listdir(d))``, a list comprehension over
    one, a name bound to one)."""
    while isinstance(node, ast.Call) and node_name(node.func) in _WRAPPERS and node.args or \
            isinstance(node, ast.ListComp):
        node = node.generators[0].iter if isinstance(node, ast.ListComp) else node.args[0]  # [f for f in listdir(d)]
    if isinstance(node, ast.Name):
        return node.id in listed
    return isinstance(node, ast.Call) and node_name(node.func) in _LISTINGS


def _field(value: ast.expr, derived: dict[str, tuple[str, int] | None]) -> tuple[str, int] | None:
    """``(list name, index)`` when ``value`` reads one constant field of a name split from the file name."""
    for node in ast.walk(value):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in derived and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
            return node.value.id, node.slice.value
    found = {derived[n.id] for n in ast.walk(value) if isinstance(n, ast.Name) and derived.get(n.id) is not None}
    return found.pop() if len(found) == 1 else None


def _parsed_entities(loop: ast.For) -> list[str]:
    """The entity names a loop over files parses from one field of the file name beside another field."""
    if not isinstance(loop.target, ast.Name):
        return []
    derived: dict[str, tuple[str, int] | None] = {loop.target.id: None}
    assigns = sorted((n for n in ast.walk(loop) if isinstance(n, ast.Assign) and len(n.targets) == 1 and
                      isinstance(n.targets[0], ast.Name)), key=lambda n: (n.lineno, n.col_offset))
    for node in assigns:
        if any(isinstance(n, ast.Name) and n.id in derived for n in ast.walk(node.value)):
            derived[node.targets[0].id] = _field(node.value, derived)  # type: ignore[attr-defined]
    fields = {name: at for name, at in derived.items() if at is not None}
    return [name for name, at in fields.items() if vocab.ENTITY_COLUMN.search(name) and any(
        other[0] == at[0] and other[1] != at[1] for other in fields.values())]


def _recorded_only(tree: ast.AST, names: set[str]) -> bool:
    """Every read of ``names`` is an item of a tuple or list appended to a list."""
    appended: set[int] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Call) and node_name(node.func) == "append" and node.args and isinstance(
                node.args[0], (ast.Tuple, ast.List)):
            appended.update(id(e) for e in node.args[0].elts)
    return all(id(n) in appended for n in walk_once(tree)
               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names)


def _dropped(tree: ast.AST, position: int, width: int) -> bool:
    """A loop unpacks records of ``width`` items and binds the entity's place to a name it never reads."""
    for loop in walk_once(tree):
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Tuple) or len(loop.target.elts) != width:
            continue
        slot = loop.target.elts[position]
        if not isinstance(slot, ast.Name):
            continue
        read = any(isinstance(n, ast.Name) and n.id == slot.id and isinstance(n.ctx, ast.Load)
                   for stmt in loop.body for n in ast.walk(stmt))
        if not read and (slot.id == "_" or vocab.ENTITY_COLUMN.search(slot.id)):
            return True
    return False


def _record_shape(tree: ast.AST, entity: str) -> tuple[int, int] | None:
    """``(position, width)`` of ``entity`` in the tuple a loop appends as each file's record."""
    for node in walk_once(tree):
        if isinstance(node, ast.Call) and node_name(node.func) == "append" and node.args and isinstance(
                node.args[0], (ast.Tuple, ast.List)):
            elts = node.args[0].elts
            for i, e in enumerate(elts):
                if isinstance(e, ast.Name) and e.id == entity:
                    return i, len(elts)
    return None


def grouped(tree: ast.AST) -> bool:
    """The program passes ``groups=`` or names a group splitter somewhere (a grouped evaluation)."""
    return any(isinstance(n, ast.keyword) and n.arg == "groups" or isinstance(n, (ast.Name, ast.Attribute)) and
               node_name(n) in vocab.GROUP_SPLITTERS for n in walk_once(tree))


def row_splits(tree: ast.AST) -> list[ast.Call]:
    """Every row-wise split of the program: ``train_test_split``, ``cross_val_*``, a row splitter's ``.split``."""
    splitters = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and
                 node_name(n.value.func) in _ROW_SPLITTERS for t in n.targets if isinstance(t, ast.Name)}
    out = []
    for node in walk_once(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node_name(node.func)
        if name == "train_test_split" or name in _CV_CALLS:
            out.append(node)
        elif name == "split" and isinstance(node.func, ast.Attribute) and (
                isinstance(node.func.value, ast.Name) and node.func.value.id in splitters or
                isinstance(node.func.value, ast.Call) and node_name(node.func.value.func) in _ROW_SPLITTERS):
            out.append(node)
    return out


def file_entity_splits(tree: ast.Module) -> list[tuple[int, str, int]]:
    """``(split line, entity name, line that parses it)`` for every row-wise split (see the module docstring)."""
    listed = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and _listing(n.value, set())
              for t in n.targets if isinstance(t, ast.Name)}
    parsed = [(name, loop.lineno) for loop in walk_once(tree) if isinstance(loop, ast.For) and
              _listing(loop.iter, listed) for name in _parsed_entities(loop)]
    if not parsed or grouped(tree):
        return []
    out = []
    for entity, line in parsed:
        shape = _record_shape(tree, entity)
        if shape is None or not _recorded_only(tree, {entity}) or not _dropped(tree, *shape):
            continue
        out.extend((split.lineno, entity, line) for split in row_splits(tree))
    return sorted(set(out))


def file_entity_findings(tree: ast.Module, smap: Any, findings: list[Finding], function_at: Any) -> list[Finding]:
    """:func:`file_entity_splits` as ``entity_across_split`` findings, leaving out a line already reported so."""
    return split_findings("entity_across_split", [(
        line,
        f"rows of one entity ({entity}, parsed from each file's name beside another field of it on "
        f"{smap.describe(parsed_at)}: an entity has several files, so several rows) are split row by row on "
        f"{smap.describe(line)}, the id dropped before: the same entity lands on both sides. Fix: keep the id and "
        "split with GroupKFold / GroupShuffleSplit (groups=)",
        {"columns": [entity], "parsed_at": smap.where(parsed_at)})
        for line, entity, parsed_at in file_entity_splits(tree)], tree, smap, findings, function_at)


def file_loops(tree: ast.AST) -> list[ast.For]:
    """Loops over files: over a listing (or a name bound to one), or over the file names ``os.walk`` yields."""
    listed = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and _listing(n.value, set())
              for t in n.targets if isinstance(t, ast.Name)}
    walked = {e.id for n in walk_once(tree) if isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and
              node_name(n.iter.func) == "walk" and isinstance(n.target, ast.Tuple) and len(n.target.elts) == 3
              for e in n.target.elts[2:] if isinstance(e, ast.Name)}
    return [n for n in walk_once(tree) if isinstance(n, ast.For) and (
        _listing(n.iter, listed) or isinstance(n.iter, ast.Name) and n.iter.id in walked)]


def derived_names(tree: ast.AST, seeds: set[str]) -> set[str]:
    """``seeds`` and every name assigned (in any order of the program) from an expression that reads one of them."""
    names = set(seeds)
    assigns = [n for n in walk_once(tree) if isinstance(n, ast.Assign)]
    grown = True
    while grown:
        grown = False
        for node in assigns:
            if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node.value)):
                for target in node.targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name) and n.id not in names:
                            names.add(n.id)
                            grown = True
    return names


def splits_of(tree: ast.AST, names: set[str]) -> list[ast.Call]:
    """The row-wise splits (:func:`row_splits`) whose positional arguments read one of ``names``."""
    return [s for s in row_splits(tree) if any(isinstance(n, ast.Name) and n.id in names
                                               for a in s.args for n in ast.walk(a))]


__all__ = ["derived_names", "file_entity_findings", "file_entity_splits", "file_loops", "grouped", "row_splits",
           "splits_of"]
