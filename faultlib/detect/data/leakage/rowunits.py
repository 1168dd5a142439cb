"""Rows of a finer unit than the entity they belong to, both ids named in one program, for the static leakage
analysis's ``entity_across_split``.

An EHR extract keeps one row per hospital encounter and names the patient of each: the Diabetes 130-US hospitals
table has ``encounter_id`` and ``patient_nbr``, and a patient comes back (Strack et al., "Impact of HbA1c measurement
on hospital readmission rates", BioMed Research International 2014: 101,766 encounters of 71,518 patients). A
dermatoscopy table keeps one row per image and names the lesion: HAM10000 "includes lesions with multiple images,
which can be tracked by the lesion_id-column" (Tschandl et al., Scientific Data 2018). A program that names both ids of
one table tells that an entity has several rows; a hold-out split row by row then scores encounters (images) of
patients (lesions) whose other rows trained the model (Kapoor & Narayanan, "Leakage and the reproducibility crisis in
machine-learning-based science", Patterns 2023: non-independence between train and test samples; scikit-learn user
guide, "Cross-validation iterators for grouped data"). The table rule of :mod:`.design` needs a ``groupby`` over the
entity, the file rule of :mod:`.fileentities` an id parsed from file names; here the two ids are column names, often
only in the list of columns the program drops (``df.drop(['encounter_id', 'patient_nbr'], axis=1)``).

:func:`row_unit_splits` reports each hold-out split (``train_test_split``; ``np.split`` of ``df.sample(frac=1)``,
the shuffled-rows idiom) of a program that

* names as columns (a subscript, a list or tuple of names, an argument of a method) an entity id
  (:data:`~.vocab.ENTITY_COLUMN`: ``patient_nbr``, ``subject_id``; or a lesion id) and the id of a finer unit
  (``encounter_id``, ``admission_id``, ``visit_id``, ``image_id``, ``sample_id``, ...);
* neither groups nor deduplicates by an entity id (``groupby('patient_nbr')``, ``drop_duplicates(subset=...)``:
  one row per entity, or the table rule's case) and passes no ``groups=`` nor a group splitter anywhere;
* and hands a held-out part of the split, or what is computed from it, to a model (``predict``, ``score``,
  ``evaluate``) or to a file (``to_csv``: another program scores it), before the next hold-out split of
  the program (a notebook that repeats its pipeline rebinds the same names).

Silent: a split of the entity ids themselves (``train_test_split(df['lesion_id'].unique())``: entities parted
whole), a split whose held-out part nothing uses. A cross-validation of such rows is the same leak; it is left to
the table rule (one finding per CV call would repeat one fact).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.foldbodies import enclosing_function
from faultlib.detect.data.leakage.reportedlines import split_findings
from faultlib.detect.data.leakage.targets import node_name
from faultlib.findings import Finding
from faultlib.pyflow.walk import walk_once

#: a lesion (several images of one lesion, HAM10000) is an entity too, beside vocab.ENTITY_COLUMN's
_LESION = re.compile(r"(^|_)lesion_?id$", re.IGNORECASE)
#: the id of one row of an entity: an encounter, an admission, a stay, an image, a sample of a patient or lesion
_UNIT = re.compile(r"(^|[_ ])(encounter|admission|hadm|visit|stay|icustay|episode|image|img|scan|study|series|"
                   r"sample|specimen|slide|exam|appointment|claim)[_ ]?(id|nbr|num|no|number|index)$", re.IGNORECASE)
#: calls that score rows with a model (a name computed from a held-out part may also name training rows: a helper
#: hands both parts back in one tuple, so a fit on it says nothing) or hand them to a file
_MODEL_USES = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "score", "evaluate"})
#: a table of rows written to a file (a model or a parameter saved with ``joblib.dump`` holds no rows)
_SAVES = frozenset({"to_csv", "to_parquet", "to_pickle", "to_feather", "to_excel"})


def _entity(name: str) -> bool:
    return bool(vocab.ENTITY_COLUMN.search(name) or _LESION.search(name))


def _column_names(tree: ast.AST) -> set[str]:
    """String constants in the place of a column: a subscript's key, an item of a list or tuple, a method's
    argument."""
    places: list[ast.expr] = []
    for node in walk_once(tree):
        if isinstance(node, ast.Subscript):
            places.append(node.slice)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            places += node.elts
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            places += node.args + [k.value for k in node.keywords]
    out: set[str] = set()
    for place in places:
        items = place.elts if isinstance(place, (ast.List, ast.Tuple)) else [place]
        out |= {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
    return out


def _one_row_per_entity(tree: ast.AST) -> bool:
    """The program groups or deduplicates by an entity id, or splits by groups."""
    for node in walk_once(tree):
        if isinstance(node, ast.keyword) and node.arg == "groups" or \
                isinstance(node, (ast.Name, ast.Attribute)) and node_name(node) in vocab.GROUP_SPLITTERS:
            return True
        if isinstance(node, ast.Call) and node_name(node.func) in ("groupby", "drop_duplicates") and any(
                isinstance(c, ast.Constant) and isinstance(c.value, str) and _entity(c.value)
                for a in node.args + [k.value for k in node.keywords] for c in ast.walk(a)):
            return True
    return False


def _held_out_targets(node: ast.Assign, call: ast.Call) -> list[str]:
    """The names an assignment binds to the held-out parts of a split: the second of each (train, test) pair of a
    ``train_test_split``, every part after the first of an ``np.split``."""
    target = node.targets[0] if len(node.targets) == 1 else None
    names = [e.id if isinstance(e, ast.Name) else "" for e in target.elts] \
        if isinstance(target, (ast.Tuple, ast.List)) else []
    if node_name(call.func) == "split":
        return [n for n in names[1:] if n]
    return [n for i, n in enumerate(names) if i % 2 == 1 and n]


def _hold_out(call: ast.Call) -> bool:
    """``train_test_split(...)`` or ``np.split(df.sample(frac=1), ...)``."""
    if node_name(call.func) == "train_test_split":
        return True
    return node_name(call.func) == "split" and isinstance(call.func, ast.Attribute) and \
        node_name(call.func.value) in ("np", "numpy") and bool(call.args) and isinstance(call.args[0], ast.Call) and \
        node_name(call.args[0].func) == "sample"


def _target_names(target: ast.expr) -> set[str]:
    """Names an assignment target binds: a name, the names of a tuple or list, the table of ``t['col'] = ...``."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for e in target.elts for n in _target_names(e)}
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    return {target.id} if isinstance(target, ast.Name) else set()


Bound = list[tuple[set[str], ast.AST, int | None]]


def _bound(tree: ast.AST) -> Bound:
    """``(names bound, value, line)`` of every assignment, augmented assignment and for loop."""
    out: Bound = []
    for node in walk_once(tree):
        if isinstance(node, ast.Assign):
            out.append(({n for t in node.targets for n in _target_names(t)}, node.value, node.lineno))
        elif isinstance(node, ast.AugAssign):
            out.append((_target_names(node.target), node.value, node.lineno))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            out.append((_target_names(node.target), node.iter, node.lineno))
    return out


def _returned(helper: ast.AST | None) -> Bound:
    """``(name, returned value, None)`` of ``helper``, the function a split sits in (its callers get the parts it
    returns)."""
    if isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [({helper.name}, r.value, None) for r in ast.walk(helper) if isinstance(r, ast.Return) and r.value]
    return []


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _derived(binds: Bound, start: set[str], lines: range, helper: ast.AST | None) -> set[str]:
    """``start`` and every name computed from it on ``lines`` (assignments, loops over it: ``binds``, the program's
    :func:`_bound`; the split's helper's return value)."""
    names = set(start)
    bound = [(targets, value) for targets, value, line in [*binds, *_returned(helper)] if line is None or line in lines]
    while True:
        more = {n for targets, value in bound if _reads(value, names) for n in targets
                if not vocab.looks_like_train(n)} - names  # a helper hands both parts back: X_train is not held out
        if not more:
            return names
        names |= more


def _used(tree: ast.AST, names: set[str], lines: range) -> bool:
    """A model predicts or scores ``names``, or they are written to a file, on one of ``lines``."""
    for node in walk_once(tree):
        if not isinstance(node, ast.Call) or node.lineno not in lines:
            continue
        called = node_name(node.func)
        if called in _MODEL_USES and any(_reads(a, names) for a in node.args + [k.value for k in node.keywords]):
            return True
        if called in _SAVES and _reads(node.func, names):
            return True
    return False


def _of_entity_ids(arg: ast.expr, binds: Bound) -> bool:
    """The split's rows are entity ids: the argument (or a value bound to its name: ``binds``, :func:`_bound`) reads
    an entity column."""
    values = [arg] + [value for targets, value, _ in binds if isinstance(arg, ast.Name) and arg.id in targets]
    return any(isinstance(c, ast.Constant) and isinstance(c.value, str) and _entity(c.value)
               for v in values for c in ast.walk(v))


def row_unit_splits(tree: ast.Module) -> list[tuple[int, str, str]]:
    """``(split line, entity id, unit id)`` of every hold-out split (see the module docstring)."""
    columns = _column_names(tree)
    entities = sorted(c for c in columns if _entity(c))
    units = sorted(c for c in columns if _UNIT.search(c) and not _entity(c))
    if not entities or not units or _one_row_per_entity(tree):
        return []
    splits = sorted((n for n in walk_once(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and
                     _hold_out(n.value)), key=lambda n: n.lineno)
    out = []
    binds = _bound(tree)  # once a program, for every split
    for i, node in enumerate(splits):
        call = node.value
        if not call.args or _of_entity_ids(call.args[0], binds):
            continue
        # the split's parts are used before the next split rebinds the names (a notebook repeating its pipeline)
        until = splits[i + 1].lineno if i + 1 < len(splits) else max(
            (getattr(n, "lineno", 0) for n in walk_once(tree)), default=node.lineno) + 1
        held, lines = set(_held_out_targets(node, call)), range(node.lineno, until)
        if held and _used(tree, _derived(binds, held, lines, enclosing_function(tree, node.lineno)), lines):
            out.append((call.lineno, entities[0], units[0]))
    return sorted(set(out))


def _message(smap: Any, line: int, entity: str, unit: str) -> str:
    return (f"rows of one entity are split row by row on {smap.describe(line)}: the program names the entity's id "
            f"({entity}) beside the id of a finer unit ({unit}), so an entity has several rows, and the held-out part "
            "is used: the same entity lands on both sides. Fix: keep the id and split with GroupShuffleSplit / "
            "GroupKFold (groups=)")


def row_unit_findings(tree: ast.Module, smap: Any, findings: list[Finding], function_at: Any) -> list[Finding]:
    """:func:`row_unit_splits` as ``entity_across_split`` findings, leaving out a line already reported so."""
    found = [(line, _message(smap, line, entity, unit), {"columns": [entity], "unit": unit})
             for line, entity, unit in row_unit_splits(tree)]
    return split_findings("entity_across_split", found, tree, smap, findings, function_at)


__all__ = ["row_unit_findings", "row_unit_splits"]
