"""Files one script writes and another reads, across a repository, for the static leakage analysis.

``prep.py`` fits a scaler (or a tf-idf, an imputer, a mean written by hand) on every row and writes the result
(``to_csv``, ``np.save``, ``joblib.dump``, ...); ``model.py`` reads that file and splits, cross-validates or
scores it. Neither file shows the leak alone. :class:`RepoFiles` indexes, for every ``.py`` script and (since
stop 47) every notebook under the repository's root (:func:`repo_root`; notebooks: :mod:`.nbfiles`), the paths it
writes and reads (:mod:`~faultlib.detect.data.leakage.pathexprs`);
:func:`handed_on` runs the writer and each script that reads one of its files as one program
(:func:`~faultlib.detect.data.leakage.analyze_session`, the writer first: the order they run in is unknown and a
read needs the write before it) and keeps the findings at the writer's own lines, each naming the file and the
line that read it (``evidence["handed_on"]``), and at the lines of the modules the writer runs whose fits shaped the
rows written (a feature helper the stage script calls: wave 89). The reader's own leaks are its own report's. A fit
whose only reach in the writer was a save takes the readers' verdict (:mod:`.savedreach`): in the joins, a save
of a file an evaluating script reads (:meth:`RepoFiles.evaluated_files`), or of a file no script reads though a
stage wrote it (:func:`.deadends.dead_ends`), reaches nothing by itself.

Bounds: a root of at most :data:`MAX_FILES` scripts (and :data:`~.nbfiles.MAX_NOTEBOOKS` notebooks),
:data:`MAX_READERS` readers a writer; a path that cannot be known links nothing. A notebook's lines in the index are
lines of its joined code cells; messages name its cell and line (:func:`~.nbfiles.shown_place`).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.detect.data.leakage.callerpaths import CallerPaths
from faultlib.detect.data.leakage.classpaths import class_attribute_paths, merged_keys
from faultlib.detect.data.leakage.helperreads import imported_reads, imported_writes
from faultlib.detect.data.leakage.nbfiles import (code_tree, is_notebook, notebook_code, place,
                                                  project_notebooks, shown_place)
from faultlib.detect.data.leakage.pathexprs import FilePath, PathEnv, file_access, path_of, same_file
from faultlib.detect.data.leakage.readerprograms import joined_program, program_evaluates
from faultlib.detect.data.leakage.relays import relayed_readers
from faultlib.detect.data.leakage.reposcripts import MAX_FILES, script_tree, scripts_under
from faultlib.detect.data.leakage.yamlpaths import _yaml_files, config_key_paths
from faultlib.pyflow.walk import walk_once

#: the most scripts indexed under one root (a larger folder is not one project's scripts)
#: how many folders above a script's own its project's root may be
MAX_UP = 4
#: names (lower case; a prefix for READMEs and licences) that mark a project's root folder
PROJECT_MARKERS = (".git", "readme", "setup.py", "setup.cfg", "pyproject.toml", "requirements.txt", "license")
#: the most reading scripts joined with one writer
MAX_READERS = 6
#: folders never indexed (environments, caches, vendored packages)


@dataclass(frozen=True)
class Access:
    """One write or read of a known path: ``mode`` ``write``/``read``, the path, the call's line."""

    mode: str
    path: FilePath
    line: int


@dataclass
class RepoFiles:
    """The scripts of one root, what each writes and reads, and the top-level path constants of each module.

    Attributes:
        root: the folder indexed.
        accesses: ``{script path: [Access, ...]}`` in line order.
        modules: ``{module stem: {name: FilePath}}`` (``DATA_DIR`` in ``config.py``), for ``from config import``.
        config_keys: the file each key of the root's YAML configuration names (:mod:`.yamlpaths`).
    """

    root: Path
    accesses: dict[str, list[Access]] = field(default_factory=dict)
    modules: dict[str, dict[str, FilePath]] = field(default_factory=dict)
    config_keys: dict[str, FilePath] = field(default_factory=dict)

    def name_unique(self, name: str) -> bool:
        """The file name is written at one path only in the repository."""
        if not hasattr(self, "_paths_by_name"):
            self._paths_by_name: dict[str, set[FilePath]] = {}
            for accs in self.accesses.values():
                for a in accs:
                    if a.mode == "write":
                        self._paths_by_name.setdefault(a.path.name, set()).add(a.path)
        return len(self._paths_by_name.get(name, ())) == 1

    def readers_of(self, script: str, only: list[FilePath] | None = None, *, evaluating: bool = True) -> list[
            tuple[str, list[tuple[Access, Access]]]]:
        """The other scripts that read a file ``script`` writes (one of ``only`` when given) and evaluate a model
        (:func:`evaluates`, or a module of their program does: :mod:`.readerprograms`; any reader with
        ``evaluating=False``, for :mod:`.relays`): ``[(reader, [(write, read),
        ...])]``, readers in path order, at most :data:`MAX_READERS`."""
        writes = [a for a in self.accesses.get(script, []) if a.mode == "write" and (
            only is None or any(same_file(a.path, o, self.name_unique) or same_file(o, a.path, self.name_unique)
                                for o in only))]
        out = []
        names = {w.path.name for w in writes}
        for other, accs in sorted(self.accesses.items()):
            reads = [r for r in accs if r.mode == "read" and r.path.name in names]
            if other == script or not reads:
                continue
            pairs = [(w, r) for r in reads for w in writes if same_file(w.path, r.path, self.name_unique)]
            if pairs and (not evaluating or evaluates(other) or program_evaluates(other, evaluates)):
                out.append((other, pairs))
                if len(out) == MAX_READERS:
                    break
        return out

    def evaluated_files(self, scripts: list[str]) -> tuple[FilePath, ...]:
        """The files ``scripts`` write that a script of the repository reads and evaluates (:meth:`readers_of`):
        in a join of them, saving one reaches no model by itself (:mod:`.savedreach`)."""
        out: dict[FilePath, None] = {}
        keys = {str(Path(k).resolve()): k for k in self.accesses}
        for s in scripts:
            key = keys.get(str(Path(s).resolve()))
            if key is not None:
                out.update((w.path, None) for _, pairs in self.readers_of(key) for w, _ in pairs)
        return tuple(out)


#: calls that split, cross-validate, search or score: a reader without one cannot make a written fit a leak
EVALUATES = frozenset({"train_test_split", "cross_val_score", "cross_validate", "cross_val_predict", "split",
                       "GridSearchCV", "RandomizedSearchCV", "score", "predict", "predict_proba", "fit", "train"})


def evaluates(script: str) -> bool:
    """The script splits, cross-validates, searches, scores or fits (:data:`EVALUATES`)."""
    tree = script_tree(Path(script))
    return tree is not None and any(
        isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", ""))
        in EVALUATES for n in walk_once(tree))


def repo_root(path: str | Path) -> Path:
    """The folder whose scripts may hand files to ``path``: the nearest folder at or above its own (at most
    :data:`MAX_UP` levels up) that marks a project (:data:`PROJECT_MARKERS`: ``.git``, a README, ``setup.py``,
    ``pyproject.toml``, ``requirements.txt``, a licence) and holds at most :data:`MAX_FILES` scripts; else the
    script's own folder."""
    folder = Path(path).resolve().parent
    for up in [folder, *folder.parents][:MAX_UP + 1]:
        try:
            names = {n.lower() for n in os.listdir(up)}
        except OSError:
            break
        if any(n.startswith(PROJECT_MARKERS) for n in names):
            return up if len(scripts_under(up, MAX_FILES + 1)) <= MAX_FILES else folder
    return folder


def _constants(tree: ast.Module, env: PathEnv | None = None) -> dict[str, FilePath]:
    env = env if env is not None else PathEnv(tree)
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:  # (DATA_FILE: str = "x.csv")
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                # a folder computed at run time (ROOT / "x.csv"): the file name still links
                if isinstance(t, ast.Name) and (p := env.lookup(t.id, node.lineno)) is not None and (
                        p.exact or "." in p.name):
                    out[t.id] = p
    return out


def member_constants(paths: list[str]) -> dict[str, dict[str, FilePath]]:
    """The top-level path constants of the scripts of a session, by module stem: a script joined with
    ``config.py`` reads ``config.TRAIN_CSV`` as the file that module names, as with a repository's index."""
    return {Path(p).stem: _constants(tree) for p in paths if (tree := script_tree(Path(p))) is not None}


def _accesses(tree: ast.Module, modules: dict[str, dict[str, FilePath]],
              config_keys: dict[str, FilePath] | None = None, env: PathEnv | None = None) -> list[Access]:
    env = env.seeing(modules, config_keys) if env is not None else PathEnv(tree, None, modules, config_keys)
    callers = CallerPaths(tree, env)
    out = []
    for node in walk_once(tree):
        if isinstance(node, ast.Call):
            access = file_access(node, env)
            if access is not None and (path := path_of(access[1], env, node.lineno)) is not None:
                out.append(Access(access[0], path, node.lineno))
            elif access is not None and access[1] is not None:
                # a parameter or loop variable: each file its callers pass (callerpaths.py)
                out.extend(Access(access[0], p, node.lineno) for p in callers.paths(access[1], node.lineno))
    return sorted(out, key=lambda a: a.line)


def _index(root: str, trees: tuple[tuple[str, ast.Module], ...]) -> RepoFiles:
    repo = RepoFiles(Path(root), config_keys=config_key_paths(root))
    envs = [PathEnv(tree) for _, tree in trees]  # each module's scopes read once, for both passes
    for (p, tree), env in zip(trees, envs):
        repo.modules.setdefault(Path(p).stem, {}).update(_constants(tree, env))
    # the path attributes of the project's configuration classes name files as YAML keys do (classpaths.py)
    repo.config_keys = merged_keys(repo.config_keys, class_attribute_paths([t for _, t in trees], repo.modules))
    for (p, tree), env in zip(trees, envs):
        accs = _accesses(tree, repo.modules, repo.config_keys, env)
        if accs:
            repo.accesses[p] = accs
    seen = [env.seeing(repo.modules, repo.config_keys) for env in envs]
    for mode, found in (("read", imported_reads(list(trees), seen)), ("write", imported_writes(list(trees), seen))):
        for p, files in found.items():  # load(path) / save(df, path) of another module (helperreads.py)
            added = [Access(mode, file, line) for file, line in files]  # type: ignore[arg-type]
            kept = repo.accesses.get(p, [])  # (read_csv(path) of a helper is also a read by its name: once)
            repo.accesses[p] = sorted([*kept, *(a for a in dict.fromkeys(added) if a not in kept)],
                                      key=lambda a: a.line)
    return repo


def repo_files(path: str | Path) -> RepoFiles:
    """The index of the root :func:`repo_root` finds for ``path``, shared while every script and notebook there has
    the same text (each is read again on every call: a file changed since is indexed again; a notebook's code cells
    are its text), in this process and on disk
    between runs (:mod:`.repocache`, keyed by the texts and by the code that indexes them)."""
    from faultlib.detect.data.leakage import repocache
    from faultlib.detect.data.leakage.session import _raw, _text_tree

    root = repo_root(path)
    texts = [(str(p), raw) for p in scripts_under(root, MAX_FILES) if (raw := _raw(p)) is not None]
    notebooks = {str(p): code for p in project_notebooks(root) if (code := notebook_code(p)) is not None}
    configs = [(str(p), _stamp(p)) for p in _yaml_files(root)]  # what config_keys is read from
    key = repocache.index_key(str(root), texts + [(p, text) for p, (text, _) in notebooks.items()] + configs)
    repo = _KEPT.pop(key, None) or _from_json(root, repocache.load_index(key))
    if repo is None:
        trees = [(p, t) for p, raw in texts if (t := _text_tree(raw)) is not None]
        trees += [(p, t) for p, code in notebooks.items() if (t := code_tree(p, *code)) is not None]
        repo = _index(str(root), tuple(trees))
        repocache.store_index(key, _to_json(repo))
    _KEPT[key] = repo  # the most recent last
    while len(_KEPT) > 16:
        _KEPT.pop(next(iter(_KEPT)))
    return repo


def _stamp(path: Path) -> str:
    """What the key knows of a YAML file the index reads (:mod:`.yamlpaths`): its size, time and text."""
    from faultlib.detect.data.leakage.session import _raw

    try:
        st = path.stat()
    except OSError:
        return "unreadable"
    return f"{st.st_size}:{st.st_mtime_ns}:{_raw(path)}"


_KEPT: dict[str, RepoFiles] = {}
"""The indexes built or read in this process, by :func:`~.repocache.index_key` (the last 16)."""


def _to_json(repo: RepoFiles) -> dict[str, Any]:
    return {"accesses": {s: [[a.mode, a.path.text, a.path.exact, a.line] for a in accs]
                         for s, accs in repo.accesses.items()},
            "modules": {m: {n: [p.text, p.exact] for n, p in names.items()} for m, names in repo.modules.items()},
            "config_keys": {k: [p.text, p.exact] for k, p in repo.config_keys.items()}}


def _from_json(root: Path, data: dict[str, Any] | None) -> RepoFiles | None:
    """The :class:`RepoFiles` :func:`_to_json` wrote, or None (no data, or not of its shape)."""
    if data is None:
        return None
    try:
        repo = RepoFiles(root)
        for script, accs in data["accesses"].items():
            repo.accesses[script] = [Access(_text(mode), FilePath(_text(text), _flag(exact)), _line(line))
                                     for mode, text, exact, line in accs]
        for module, names in data["modules"].items():
            repo.modules[module] = {_text(n): FilePath(_text(text), _flag(exact)) for n, (text, exact) in names.items()}
        repo.config_keys = {_text(k): FilePath(_text(text), _flag(exact))
                            for k, (text, exact) in data["config_keys"].items()}
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    return repo


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("not a bool")
    return value


def _line(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("not a line number")
    return value


def handed_on(path: str | Path, members: list[Path], report: Any, analyze_session: Any) -> bool:
    """Add to ``report`` the leaks of ``path`` that show only in the scripts reading what it writes.

    Args:
        path: the writer (a ``.py`` script or a notebook).
        members: the scripts its own analysis ran with it (its session; ``[path]`` alone).
        report: its :class:`~faultlib.detect.data.leakage.static.StaticReport`. Only the files it wrote with rows
            shaped by a fit (``report.fitted_writes``) are followed. A fit with no alarm of its own gets one finding
            (with ``evidence["handed_on"]``; of the first kind of :data:`HANDED_KINDS` the readers show), replacing
            an ``info`` one at its line: in the writer's own script, or in a module of its program whose fit shaped
            the rows written (``report.written_fits``: a feature helper the writer calls). A fit whose alarm only a
            save gave (``report.saved_only``, :mod:`.savedreach`) takes the readers' verdict: their kind, or a note
            when no reader's model is reached by it.
        analyze_session: the package's :func:`~faultlib.detect.data.leakage.analyze_session`, passed in (this
            module sits below the package, which imports it).

    Returns:
        whether a finding was added or changed.
    """
    from faultlib.detect.data.leakage.deadends import dead_ends, predicts
    from faultlib.errors import InputError
    from faultlib.findings import Finding, Severity

    if not report.fitted_writes:
        return False
    repo = repo_files(path)
    me = str(Path(path).resolve())
    script = next((s for s in repo.accesses if str(Path(s).resolve()) == me), None)
    if script is None:
        return False
    alarmed = {_at(f) for f in report.findings if f.severity != Severity.INFO and f.kind != "analysis_incomplete"
               and _at(f) not in report.saved_only}
    best: dict[Any, tuple[Finding, str, Access, Access, list[str]]] = {}
    reread: set[Any] = set()  # saved-only fits a join ran, wrote and read back (savedreach.py)
    # a notebook's reader runs in a kernel of its own, not in the writer's namespace: only the fits that shaped the
    # written rows are handed on (a writer's demo split promoted by the reader's model is not; wave 55's workbook)
    notebook = is_notebook(path)
    readers = repo.readers_of(script, report.fitted_writes)

    def join(reader: str, pairs: list[tuple[Access, Access]], relays: list[str], prefer: Any = None) -> None:
        chain = [str(path) if str(Path(m).resolve()) == me else str(m) for m in members]
        program = joined_program(chain, relays, reader, str(path))
        try:
            found, _ = analyze_session(program, entry=str(path), repo=repo, preferred_read=prefer,
                                       handed_files=repo.evaluated_files(program) + dead_ends(repo, program))
        except InputError:
            return
        if found.read_back:
            reread.update(report.saved_only & found.written_fits)
        for f in found.findings:
            at = _at(f)  # (file, cell, line): a notebook's line is inside its cell
            own = f.location.get("file") == str(path) and not notebook
            if f.severity == Severity.INFO or f.kind not in HANDED_KINDS or at in alarmed or (
                    not own and at not in report.written_fits):
                continue
            old = best.get(at)
            if old is None or HANDED_KINDS.index(f.kind) < HANDED_KINDS.index(old[0].kind):
                best[at] = (f, reader, *pairs[0], relays)

    for reader, pairs in readers:
        for prefer, some in _by_passed_path(pairs):
            join(reader, some, [], prefer)
    if not best:  # staged pipelines: the rows pass through other scripts that write them on (relays.py)
        for reader, relays, pairs in relayed_readers(repo, script, report.fitted_writes, evaluates):
            join(reader, pairs, relays)
    for at, (f, reader, write, read, relays) in best.items():
        shown, first = (p if Path(str(path)).is_absolute() else os.path.relpath(p) for p in (reader, [*relays,
                                                                                                  reader][0]))
        how = {"file": write.path.text, "written": {"file": str(path), **place(path, write.line)},
               "read": {"file": first, **place(first, read.line)}, **({"relays": relays} if relays else {})}
        passed = f", passed on by {', '.join(Path(r).name for r in relays)}" if relays else ""
        message = (f"{f.message} [the rows reach {shown} through the file `{write.path.text}`: written on "
                   f"{shown_place(path, write.line)}, read on {first} {shown_place(first, read.line)}{passed}]")
        report.findings[:] = [g for g in report.findings if _at(g) != at]
        report.findings.append(Finding(f.detector, f.severity, message, f.location, {**f.evidence, "handed_on": how},
                                       kind=f.kind))
    names = ", ".join(sorted({Path(r).name for r, _ in readers}))
    unused = _noted(report, reread - set(best), f"the scripts that read the file ({names}) do not use what it "
                    "computed to train or score")  # saved for readers, and no reader's model is reached by it
    dead = dead_ends(repo, [script])  # saved to files no script reads, by a stage of the pipeline (deadends.py)
    if not readers and all(any(same_file(w, d, repo.name_unique) for d in dead) for w in report.fitted_writes) and \
            not predicts(members, path):
        unused |= _noted(report, report.saved_only & report.written_fits, "no script of the repository reads the "
                         f"files it shaped ({', '.join(w.text for w in report.fitted_writes)}), though this script "
                         "reads what another of its scripts wrote: that branch of the pipeline stops here")
    return bool(best) or bool(unused)


def _noted(report: Any, keys: set[Any], why: str) -> set[Any]:
    """The alarms of ``report`` at ``keys`` (:func:`_at`) turned into notes: a fit whose only reach was a save
    that no reader's model uses (:mod:`.savedreach`); the keys changed."""
    from faultlib.findings import Finding, Severity

    changed = set()
    for i, g in enumerate(report.findings):
        if _at(g) in keys and g.severity != Severity.INFO:
            report.findings[i] = Finding(g.detector, Severity.INFO, f"{g.message} [only saved: {why}]", g.location,
                                         {**g.evidence, "reaches_model": False}, kind=g.kind)
            changed.add(_at(g))
    return changed


def _at(finding: Any) -> tuple[str, int, int | None]:
    """A finding's place: ``(file, cell, line)``, cell 0 for a script."""
    return finding.location.get("file", ""), finding.location.get("index", 0), finding.location.get("line")


def _by_passed_path(pairs: list[tuple[Access, Access]]) -> list[tuple[FilePath | None, list[tuple[Access, Access]]]]:
    """The joins to run for one reader: one, unless a read names several of the files written (a path its callers
    pass, callerpaths.py): then one for each of those files, the reader's read preferring it."""
    lines = [r.line for _, r in pairs]
    passed = list(dict.fromkeys(r.path for _, r in pairs if lines.count(r.line) > 1))
    if not passed:
        return [(None, pairs)]
    return [(p, sorted(((w, r) for w, r in pairs if r.path == p or r.path not in passed), key=lambda wr: wr[1].path != p))
            for p in passed]  # the preferred file's pair first: the one the finding names


#: the kinds a fit handed on through a file can have, the one reported first when readers show several (a fit
#: over the competition test rows is that whatever else a reader does; a reader that splits off a test part ranks
#: before one that cross-validates, as in one script: static.py's ``_finalize`` order, wave 58's EEG readers)
HANDED_KINDS = ("fit_on_test", "fit_before_split", "fit_outside_cv", "reused_across_folds")

__all__ = ["HANDED_KINDS", "Access", "RepoFiles", "handed_on", "repo_files", "repo_root"]
