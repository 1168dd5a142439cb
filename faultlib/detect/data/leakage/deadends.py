"""Files a stage of a project's pipeline saves for nobody, for the leakage analysis of files handed on.

A pipeline of scripts hands its tables on through files (:mod:`.repofiles`): a cleaning script writes
``cleaned.csv``, an imputation script reads it and writes ``imputed.csv``, the feature script reads ``cleaned.csv``
again (the imputed path commented out) and the model script reads the features. ``imputed.csv`` is read by no one:
that branch of the pipeline was abandoned, and a median of the test file filled into it reaches no model. The
analysis counts a save as a reach (the file goes out of sight, :mod:`.savedreach`); for such a file the repository
shows where it goes, nowhere, and the save reaches nothing (issue 17, wave 89: a learning-to-rank assignment's
imputation stage, whose test-file encoder, imputer and median fill fed no script).

A *dead end* (:func:`dead_ends`) is a file a *stage* writes (a script reading a file another script of the
repository writes: the pipeline is in sight), that no script or notebook reads by the index, and whose name no
other script or notebook holds in a string at all (``'./input/%s/feats.csv' % folder``: a read whose path the
index cannot know; a commented-out read is no string). A stage whose own code, or a function of its program it
calls, predicts, scores or cross-validates (:func:`predicts`: a stacking helper run on a list of models the
analysis does not follow one by one) keeps its saves' reach: the model it runs may use what it computed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.nbfiles import project_notebooks
from faultlib.detect.data.leakage.pathexprs import FilePath, same_file
from faultlib.detect.data.leakage.reposcripts import MAX_FILES, script_tree, scripts_under
from faultlib.pyflow.walk import walk_once


def dead_ends(repo, scripts: list[str]) -> tuple[FilePath, ...]:
    """The files ``scripts`` write that no script or notebook of the repository reads, written by a *stage*: a
    script that reads a file another script of the repository writes. The pipeline is in sight and stops
    there (an abandoned branch: the next stage reads another file), so saving one reaches no model
    (:mod:`.savedreach`). A script reading only raw input may hand its file to code out of sight: not here;
    nor a file whose name another script or notebook writes in a string at all (``'./input/%s/feats.csv' %
    folder``: a read whose path the index cannot know; a commented-out read is no string)."""
    keys = {str(Path(k).resolve()): k for k in repo.accesses}
    out: dict[FilePath, None] = {}
    for s in scripts:
        key = keys.get(str(Path(s).resolve()))
        if key is None or not _stage(repo, key):
            continue
        for w in (a for a in repo.accesses[key] if a.mode == "write"):
            if not any(r.mode == "read" and same_file(w.path, r.path, repo.name_unique)
                       for other, accs in repo.accesses.items() if other != key for r in accs) and \
                    not _named_elsewhere(repo, w.path.name, key):
                out[w.path] = None
    return tuple(out)


def _named_elsewhere(repo, name: str, script: str) -> bool:
    """A script or notebook under the root other than ``script`` has a string constant holding ``name``."""
    me = Path(script).resolve()
    return any(other != me and any(name in s for s in strings) for other, strings in _strings(repo))


def _strings(repo) -> list[tuple[Path, tuple[str, ...]]]:
    """``(resolved path, its string constants)`` of every script and notebook under the root, read once per index:
    a writer joined with each of its readers asked again for every file it writes, and each time read, parsed and
    walked every script of the repository. The index is keyed by those very texts (:func:`~.repofiles.repo_files`),
    so what it keeps is what the files hold."""
    kept = repo.__dict__.get("_string_constants")
    if kept is None:
        kept = repo.__dict__["_string_constants"] = [
            (other.resolve(), () if tree is None else tuple(
                n.value for n in walk_once(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)))
            for other in [*scripts_under(repo.root, MAX_FILES), *project_notebooks(repo.root)]
            for tree in [script_tree(other)]]
    return kept


def _stage(repo, script: str) -> bool:
    """``script`` reads a file another script of the repository writes."""
    writes = [(other, a.path) for other, accs in repo.accesses.items() if other != script for a in accs
              if a.mode == "write"]
    return any(r.mode == "read" and same_file(w, r.path, repo.name_unique) for r in repo.accesses[script]
               for _, w in writes)


def predicts(members: list[Path], writer: str | Path) -> bool:
    """The writer, or a function of its program it calls (followed through calls by name), predicts, scores or
    cross-validates: a model may use what it computed beyond the saves the analysis saw (a stacking helper run on
    every model of a list), so its unread saves are not the only use; only a stage that prepares data saves for
    nobody. A helper of a member module that nothing calls (a plotting module's ``model.predict``) does not count."""
    names = vocab.EVALUATE | vocab.CV_FUNCTIONS | vocab.MODEL_METHODS
    functions: dict[str, ast.AST] = {}
    for m in members:
        tree = script_tree(Path(m))
        functions.update((n.name, n) for n in (tree.body if tree is not None else ()) if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    todo, seen = [script_tree(Path(writer))], set()
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for n in walk_once(node):
            called = n.func.attr if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) else n.func.id if \
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) else None
            if called in names:
                return True
            if called in functions:
                todo.append(functions[called])
    return False


__all__ = ["dead_ends", "predicts"]
