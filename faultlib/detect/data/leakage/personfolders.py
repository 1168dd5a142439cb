"""Clips of per-speaker folders walked into one pool and split at random, for the static leakage analysis.

Speech corpora keep one folder per speaker: RAVDESS has ``Actor_01`` ... ``Actor_24``, each actor reading the same
sentences in every emotion (Livingstone & Russo, PLoS ONE 2018); TESS, SAVEE, CREMA-D and speaker-verification sets
are laid out the same way. A program that walks the whole tree, keeps one row per clip with a label parsed from the
file name, and splits the rows at random scores clips of actors the model was trained on: the emotion classifier
learns the voices (Kapoor & Narayanan, "Leakage and the reproducibility crisis in machine-learning-based science",
Patterns 2023, "non-independence between train and test samples"; speaker-independent evaluation is the field's
norm). The house rule for ``entity_across_split``, issue 17 wave 94.

What the program must show, all of it, for :func:`person_folder_splits` to report a row-wise split
(:func:`~.fileentities.row_splits`):

* a path or pattern naming one person's folder (:data:`_PERSON_FOLDER`: ``.../Actor_01/03-01-05-01.wav``,
  ``speaker_3/``, ``Actor_*``): the corpus is laid out by person;
* an ``os.walk`` whose folder name is read only to build paths (``os.path.join(subdir, file)``): the person's
  folder is dropped, not kept as a label or a group;
* a list appended inside the walk, and the split's arguments computed from it;
* no ``groups=`` and no group splitter anywhere (a split by actor keeps each voice on one side).

Silent: a walk whose folder name becomes the label (speaker identification: every speaker must be on both sides),
also through the path built from it (``path.split(os.sep)[-2]``, ``os.path.dirname(path)``, ``Path(path).parent``);
a walk that compares a person's id parsed in it (``if actor > 20: test.append(...)``: whole persons held out, the
split then only cuts the training persons); a program that names no person's folder; a grouped split.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.detect.data.leakage.fileentities import derived_names, grouped, splits_of
from faultlib.detect.data.leakage.targets import node_name
from faultlib.detect.data.leakage.vocab import name_tokens
from faultlib.pyflow.walk import walk_once

#: words for one person: of a folder (``Actor_01``) and of a name for a person's id (``actor = int(parts[6])``)
_PERSON_WORDS = frozenset({"actor", "speaker", "spk", "talker", "signer", "subject", "participant", "person"})
#: a folder of one person in a path or glob: ``Actor_01``, ``speaker-3``, ``spk12``, ``subject07``, ``Actor_*``
_PERSON_FOLDER = re.compile(r"(^|[/\\])(" + "|".join(sorted(_PERSON_WORDS)) + r")[_-]?(\d+|\*)([/\\]|$)",
                            re.IGNORECASE)
#: calls that build a path from a folder and a file name
_PATH_CALLS = frozenset({"join", "Path", "joinpath", "PurePath"})


def _names_person_folder(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and _PERSON_FOLDER.search(n.value)
               for n in walk_once(tree))


def _path_only(loop: ast.For, folder: str) -> bool:
    """Every read of ``folder`` in the walk's body is an argument of a path-building call."""
    in_paths = {id(a) for n in ast.walk(loop) if isinstance(n, ast.Call) and node_name(n.func) in _PATH_CALLS
                for a in n.args}
    return all(id(n) in in_paths for stmt in loop.body for n in ast.walk(stmt)
               if isinstance(n, ast.Name) and n.id == folder and isinstance(n.ctx, ast.Load))


def _folder_part(node: ast.AST, paths: set[str]) -> bool:
    """``node`` takes the folder back out of a path in ``paths``: ``p.split(os.sep)[-2]`` (any piece but the last),
    ``os.path.dirname(p)``, ``Path(p).parent``/``.parts``."""
    def reads_path(expr: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id in paths for n in ast.walk(expr))

    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and node_name(node.value.func) in (
            "split", "rsplit") and isinstance(node.value.func, ast.Attribute) and reads_path(node.value.func.value):
        last = isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.op, ast.USub) and isinstance(
            node.slice.operand, ast.Constant) and node.slice.operand.value == 1
        return not last
    if isinstance(node, ast.Call) and node_name(node.func) == "dirname":
        return any(reads_path(a) for a in node.args)
    return isinstance(node, ast.Attribute) and node.attr in ("parent", "parents", "parts") and reads_path(node.value)


def _folder_kept(loop: ast.For, folder: str) -> bool:
    """A path built from ``folder`` in the walk is taken apart again for its folder: the person is kept (the label
    of speaker identification, or a group)."""
    paths = {t.id for n in ast.walk(loop) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and
             node_name(n.value.func) in _PATH_CALLS and any(isinstance(a, ast.Name) and a.id == folder
                                                       for a in n.value.args)
             for t in n.targets if isinstance(t, ast.Name)}
    return bool(paths) and any(_folder_part(n, paths) for n in ast.walk(loop))


def _persons_compared(loop: ast.For) -> bool:
    """The walk compares a name for a person's id (``if actor > 20``, ``speaker in test_speakers``): whole persons
    are held out by hand."""
    return any(isinstance(n, ast.Compare) and any(
        isinstance(x, ast.Name) and _PERSON_WORDS & set(name_tokens(x.id)) for x in [n.left, *n.comparators])
        for n in ast.walk(loop))


def _appended(loop: ast.For) -> set[str]:
    return {n.func.value.id for n in ast.walk(loop) if isinstance(n, ast.Call) and node_name(n.func) == "append" and
            isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)}


def person_folder_splits(tree: ast.Module) -> list[tuple[int, str, int]]:
    """``(split line, pooled list, line of the walk)`` (see the module docstring)."""
    if not _names_person_folder(tree) or grouped(tree):
        return []
    out = []
    for loop in walk_once(tree):
        if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and node_name(loop.iter.func) == "walk"
                and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 3 and
                isinstance(loop.target.elts[0], ast.Name) and _path_only(loop, loop.target.elts[0].id)
                and not _folder_kept(loop, loop.target.elts[0].id) and not _persons_compared(loop)):
            continue
        for pooled in sorted(_appended(loop)):
            out.extend((split.lineno, pooled, loop.lineno) for split in splits_of(tree, derived_names(tree, {pooled})))
    return sorted(set(out))


def person_folder_reports(tree: ast.Module, smap: Any) -> list[tuple[int, str, dict[str, Any]]]:
    """:func:`person_folder_splits` as ``(line, message, evidence)`` of ``entity_across_split`` warnings."""
    out = []
    for line, pooled, walked_at in person_folder_splits(tree):
        said = (f"the program names per-person folders (an actor's or speaker's folder), walks them on "
                f"{smap.describe(walked_at)} into {pooled} without keeping the folder, and splits the clips at "
                f"random on {smap.describe(line)}: clips of one person land on both sides. Fix: keep the person "
                "(folder or id in the file name) and split with GroupShuffleSplit / GroupKFold (groups=), or hold "
                "out whole persons")
        out.append((line, said, {"columns": [pooled], "walked_at": smap.where(walked_at)}))
    return out


__all__ = ["person_folder_reports", "person_folder_splits"]
