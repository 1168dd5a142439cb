"""Preprocessing leakage: a transformer or selector fitted on rows that are later used to evaluate.

Three ways to find it, one vocabulary of kinds (:data:`KINDS`):

* **static** (:func:`analyze_file`): an abstract interpretation of a script or notebook
  (:mod:`~faultlib.detect.data.leakage.static`) that follows data and estimators through assignments,
  tuple unpacking, function calls and returns;
* **runtime** (:class:`LeakageMonitor`): wrappers around scikit-learn transformers and Pipelines
  that fingerprint the rows each ``fit`` saw and flag an evaluation on rows a fitted step had seen
  (:mod:`~faultlib.detect.data.leakage.runtime`, imports scikit-learn);
* **artifact** (:func:`compare_fitted`): a fitted scaler's saved statistics compared with the
  training and test tables say which rows it was fitted on (:mod:`~faultlib.detect.data.leakage.fitted`).

Why it matters: a selector fitted on all rows before cross-validation picks the features that
happen to separate the classes *in the test folds too*; on data with no signal at all the
cross-validated accuracy then looks far above chance (Ambroise & McLachlan, PNAS 2002, "Selection
bias in gene extraction"; Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*,
section 7.10.2, "The wrong and right way to do cross-validation").
"""

from __future__ import annotations

from typing import Any

from faultlib.findings import ANALYSIS_INCOMPLETE, ANALYSIS_INCOMPLETE_MEANS

KINDS = {
    "fit_before_split": "a transformer or selector is fitted on rows that a later split sends to test",
    "fit_on_test": "a transformer is fitted on the test rows themselves (or on train and test stacked); a saved "
                   "scaler's statistics are those of the test table or of train+test",
    "fit_outside_cv": "a transformer is fitted on all the rows (and labels) that are then cross-validated: every "
                      "fold is scored on rows that shaped its features",
    "reused_across_folds": "one fitted transformer is applied in every fold instead of being refitted on each "
                           "fold's training rows",
    "trained_on_test": "a model, a search or a cross-validation that chooses one runs on rows that include the "
                       "held-out rows a model is then scored on (GridSearchCV.fit or cross_val_score on all rows, then "
                       "a score on the test part: ASE'22's overlap leakage)",
    "tuned_on_test": "candidates (a hyperparameter, a model, a feature set, the number of boosting rounds or epochs) "
                     "are scored on the test rows and the best is kept (in a loop, or by early stopping or a best-model "
                     "callback on them): the test rows chose the model, so its test score is optimistic (ASE'22's "
                     "multi-test leakage)",
    "fitted_rows_unknown": "a saved scaler's statistics match neither the training table, the test table nor both: "
                           "it was fitted on other rows",
    "shuffled_time_split": "rows of a time series (lag or rolling features) are split or cross-validated with "
                           "shuffling: the model is trained on the future of the rows it is scored on",
    "target_in_features": "a feature column is computed from the target of the same row (its diff, pct_change or a "
                          "trailing rolling/ewm window ending at that row, not lagged by shift): the model is given "
                          "the answer it predicts",
    "entity_across_split": "rows of one entity (a patient, subject or session id the script groups by; in data "
                           "mode the --group column) are on both sides of the split (use a group split)",
    "duplicate_rows_across_split": "test rows that also appear, value for value, in the training table (data mode)",
    "inputs_not_assigned": "(info) a script fits, splits or scores data it never assigns, and no readable sibling "
                           "script assigns it all: what happened to those rows before is not analysed (pass the "
                           "scripts together: check leakage prep.py model.py)",
    "code_not_parsed": "(info) a notebook cell or a script's top-level statement is not valid Python 3 (a Python 2 "
                       "print, a pasted fragment): it was skipped and the rest analysed",
    ANALYSIS_INCOMPLETE: ANALYSIS_INCOMPLETE_MEANS,
}

_LAZY = {
    "LeakageMonitor": "faultlib.detect.data.leakage.runtime", "Monitored": "faultlib.detect.data.leakage.runtime",
    "row_fingerprints": "faultlib.detect.data.leakage.runtime",
    "FittedScaler": "faultlib.detect.data.leakage.fitted", "FittedReport": "faultlib.detect.data.leakage.fitted",
    "compare_fitted": "faultlib.detect.data.leakage.fitted", "load_fitted": "faultlib.detect.data.leakage.fitted",
    "SourceMap": "faultlib.detect.data.leakage.source", "StaticReport": "faultlib.detect.data.leakage.static",
    "compare_tables": "faultlib.detect.data.leakage.overlap", "OverlapReport": "faultlib.detect.data.leakage.overlap",
}

__all__ = ["KINDS", "analyze_file", "analyze_session", "analyze_source", *sorted(_LAZY)]


def analyze_file(path: str, *, alone: bool = False):
    """Statically analyse a ``.py`` script or an ``.ipynb`` notebook for preprocessing leakage.

    Args:
        path: the file; read through :mod:`faultlib.readers` (bounded, UTF-8, no symlinks).
        alone: do not join the sibling scripts a ``.py`` script imports or needs (see
            :mod:`~faultlib.detect.data.leakage.session`); by default they run before it as one program and
            ``smap.files`` names them.

    Returns:
        ``(report, smap)``: the :class:`~faultlib.detect.data.leakage.static.StaticReport` and the
        :class:`~faultlib.detect.data.leakage.source.SourceMap` (cells of a notebook).

    An empty file, or a notebook without code cells, has nothing to analyse: an empty, complete report.
    A cell (or a script's top-level statement) that is not valid Python is skipped with an ``info``
    finding of kind ``code_not_parsed`` naming it; the rest is analysed.

    Raises:
        InputError: not a ``.py``/``.ipynb`` file, unreadable, nothing in it valid Python (with the first
            error's line and, for a notebook, the cell), or a malformed notebook.
    """
    from pathlib import Path

    from faultlib.detect.data.leakage.kedronodes import kedro_program
    from faultlib.detect.data.leakage.session import session_members
    from faultlib.detect.data.leakage.source import SourceMap, clean_lines, notebook_source
    from faultlib.errors import InputError
    from faultlib.readers import read_text
    from faultlib.readers.notebook import load_notebook

    suffix = Path(path).suffix.lower()
    if suffix == ".ipynb":
        doc = load_notebook(path)  # its own bounds: outputs (plots) make notebooks tens of MB
        if doc is None:
            return _nothing(path)
        source, smap = notebook_source(doc, path, runs=not alone)  # %run prep.ipynb: its cells too
        if not smap.cells:
            return _nothing(path, smap)
        if not alone:  # sys.path.append('../src'); from prep import scale: the project's modules it imports
            from faultlib.detect.data.leakage.nbimports import with_imported_modules

            source, smap = with_imported_modules(path, source, smap)
    elif suffix in (".py", ".pyw"):
        source, smap = read_text(path), SourceMap(str(path))
        if not source.strip():
            return _nothing(path, smap)
        kedro = None if alone else kedro_program(path)  # a Kedro node module: its pipelines' calls (kedronodes.py)
        members = [] if alone or kedro is not None else session_members(path)
        if len(members) > 1:
            report, smap = analyze_session(members, entry=str(path))
            _note_left_out(report, path, members)
            _hand_on(path, members, report, smap)
            _note_resubstitution(path, report)
            _note_search_handoff(path, report)
            return _in_order(report, smap), smap
        source, smap = kedro if kedro is not None else ("\n".join(clean_lines(source.split("\n"))), smap)
    elif Path(path).is_dir() and not Path(path).is_symlink():
        raise InputError("is a directory: check leakage reads one script or notebook at a time; pass a .py or .ipynb "
                         "file in it (or several .py files that run as one program)", path=path)
    else:
        raise InputError(f"is not a Python script or notebook ({suffix or 'no extension'}): pass a .py or .ipynb "
                         "file", path=path)
    try:
        report = analyze_source(source, smap)
    except SyntaxError as exc:
        line = exc.lineno or 1
        at = smap.where(line)
        where = f"cell {at['index']} line {at['line']}" if "index" in at else f"line {line}"
        raise InputError(f"is not valid Python ({where}, column {exc.offset or 0}): {exc.msg}", path=path,
                         line=at["line"]) from None
    if suffix != ".ipynb":
        _note_unassigned(report, path, alone)
        if not alone:
            _note_resubstitution(path, report)
            _note_search_handoff(path, report)
    if not alone:  # a notebook hands its rows on too (nbfiles.py)
        _hand_on(path, [Path(path)], report, smap)
    return _in_order(report, smap), smap


def _hand_on(path: str, members: list, report, smap) -> None:
    """The leaks that show only in the scripts reading what ``path`` writes (:mod:`.repofiles`)."""
    from faultlib.detect.data.leakage.repofiles import handed_on

    handed_on(path, members, report, analyze_session)


def _in_order(report, smap):
    """``report`` with its findings in (file, cell, line, kind) order, the order :func:`analyze_source` gives: the
    passes that read other scripts (:func:`_hand_on`, :func:`_note_resubstitution`, :func:`_note_search_handoff`)
    append theirs after the program's own (a stable sort: findings of one line keep their order)."""
    report.findings.sort(key=_finding_order(smap))
    return report


def _finding_order(smap):
    """The sort key of a finding in ``smap``'s program: its file's place, cell, line and kind."""
    return lambda f: (smap.order(f.location.get("file")), f.location.get("index", 0), f.location.get("line", 0),
                      f.kind)


def _note_resubstitution(path: str, report) -> None:
    """``trained_on_test`` where the script scores a model file another script fitted on every row of the table it
    scores (:mod:`.modelfiles`)."""
    from pathlib import Path

    from faultlib.detect.data.leakage.modelfiles import resubstituted
    from faultlib.detect.data.leakage.repofiles import repo_files
    from faultlib.detect.data.leakage.reposcripts import script_tree
    from faultlib.findings import Finding, Severity

    tree = script_tree(Path(path))
    if tree is None or not _called_names(tree) & {"load", "load_model"}:
        return
    found = resubstituted(str(path), tree, repo_files(path))
    if found is None or _reported_at(report, path, found.line, ("trained_on_test",)):
        return
    report.findings.append(Finding(
        "leakage", Severity.WARNING,
        f"the model loaded from `{found.model_file}` is scored here on the rows of `{found.table}`, every row of which "
        f"{Path(found.trainer).name} fitted it on (it splits nothing): the score is the model's fit to its own "
        "training rows, not a held-out estimate. Fix: split the table once, train on the training part and score "
        "the held-out part here", {"file": str(path), "line": found.line},
        {"model_file": found.model_file, "trained_by": found.trainer, "table": found.table}, kind="trained_on_test"))


def _reported_at(report, path: str, line: int, kinds: tuple[str, ...]) -> bool:
    """A finding of one of ``kinds`` already stands at ``line`` of ``path``."""
    return any(f.kind in kinds and f.location.get("line") == line and f.location.get("file", str(path)) == str(path)
               for f in report.findings)


def _note_search_handoff(path: str, report) -> None:
    """``trained_on_test`` at a search over every row whose choice other scripts of the project type in and
    cross-validate on the same data (:mod:`.searchhandoff`)."""
    from pathlib import Path

    from faultlib.detect.data.leakage.repofiles import repo_root
    from faultlib.detect.data.leakage.reposcripts import script_tree
    from faultlib.detect.data.leakage.searchhandoff import searched_then_rescored
    from faultlib.findings import Finding, Severity

    tree = script_tree(Path(path))
    if tree is None or not any(name.endswith("SearchCV") for name in _called_names(tree)):
        return
    found = searched_then_rescored(str(path), tree, repo_root(path))
    if found is None or _reported_at(report, path, found[0], ("trained_on_test", "tuned_on_test")):
        return
    line, searched, typed_in, rescored_by = found
    report.findings.append(Finding(
        "leakage", Severity.WARNING,
        f"the search over every row of the data chooses {searched}'s hyperparameters here; "
        f"{Path(typed_in).name} types the chosen values in and {Path(rescored_by).name} cross-validates "
        "that model on the same data: the reported folds are among those that chose it, so the score is optimistic. "
        "Fix: cross-validate the search itself (nested cross-validation) or score the choice on rows held out "
        "before the search", {"file": str(path), "line": line},
        {"searched": searched, "typed_in": typed_in, "rescored_by": rescored_by},
        kind="trained_on_test"))


def _called_names(tree) -> set[str]:
    """The names the script calls (``f(...)``, ``obj.f(...)``): a cheap test before the project is read."""
    import ast

    from faultlib.pyflow.walk import nodes_of

    return {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            for n in nodes_of(tree, ast.Call)}


def _note_left_out(report, path: str, members: list) -> None:
    """``complete: false`` and an ``analysis_incomplete`` finding when modules the script imports itself were not
    joined to its session (:func:`~faultlib.detect.data.leakage.session.left_out`): never "ok" for code not analysed."""
    from faultlib.detect.data.leakage.session import MAX_DIRECT, left_out
    from faultlib.findings import analysis_incomplete

    missing = left_out(path, members)
    if not missing:
        return
    shown = ", ".join(p.name for p in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    report.findings.append(analysis_incomplete(
        "leakage", f"{len(missing)} of the project modules this script imports were not joined to its session "
        f"(at most {MAX_DIRECT} scripts): {shown}; what their functions do to the rows was not analysed",
        {"file": str(path)}))
    report.complete = False


def _note_unassigned(report, path: str, alone: bool) -> None:
    """An ``info`` finding ``inputs_not_assigned`` when the script fits, splits or scores data it never assigns
    (:func:`~faultlib.detect.data.leakage.session.unresolved_inputs`): "ok" must not read as "the rows were clean
    before this script"."""
    from faultlib.detect.data.leakage.session import unresolved_inputs
    from faultlib.findings import Finding, Severity

    names, unreadable = unresolved_inputs(path)
    if not names:
        return
    shown = ", ".join(f"`{n}`" for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    why = ("--alone was given" if alone else "no sibling script in its folder assigns them all" + (
        f"; {len(unreadable)} could not be read: {', '.join(unreadable[:5])}" if unreadable else ""))
    report.findings.append(Finding(
        "leakage", Severity.INFO, f"{shown} are fitted, split or scored here but never assigned ({why}): what was "
        "done to those rows before this script is not analysed; pass the scripts together (faultlib check leakage "
        "prep.py model.py)", {"file": str(path)}, {"variables": names, "unreadable_siblings": unreadable},
        kind="inputs_not_assigned"))


def analyze_session(paths: list[str], *, entry: str | None = None, repo=None, preferred_read=None, handed_files=()):
    """Statically analyse ``.py`` scripts that run in order in one interpreter as one program.

    Args:
        paths: the scripts, in the order they run (``%run a.py`` then ``%run b.py``; see
            :mod:`~faultlib.detect.data.leakage.session`); with ``repo`` given, notebooks too (a writer and the
            readers of its file, :mod:`~faultlib.detect.data.leakage.nbfiles`).
        entry: the script the report is about (default: the last); findings name their own script.
        repo: the :class:`~faultlib.detect.data.leakage.repofiles.RepoFiles` of their repository, for the paths of
            files one script writes and another reads (its config modules' constants); ``None``: the scripts' own.
        preferred_read: the file (a :class:`~.pathexprs.FilePath`) a read of a path its callers pass returns when
            it may name several (:class:`~.handoff.FileHandoff`); ``None``: the first one a fit shaped.
        handed_files: the files (:class:`~.pathexprs.FilePath`) that scripts of the repository read and evaluate:
            saving one reaches no model by itself, what the readers do with it does (:mod:`.savedreach`).

    Returns:
        ``(report, smap)`` as :func:`analyze_file`; ``smap.files`` lists the scripts and their lines.

    Raises:
        InputError: a file that is not a ``.py`` script, unreadable, or nothing in the scripts valid Python.
    """
    from pathlib import Path

    from faultlib.detect.data.leakage.nbfiles import is_notebook, join_program
    from faultlib.detect.data.leakage.session import join_scripts
    from faultlib.errors import InputError

    for p in paths:  # notebooks join only a writer and its readers (repo given: repofiles.py)
        if Path(p).suffix.lower() not in (".py", ".pyw") and not (repo is not None and is_notebook(p)):
            raise InputError("scripts analysed together must be .py files (pass a notebook alone)", path=str(p))
    joined = join_program if any(is_notebook(p) for p in paths) else join_scripts
    source, smap = joined([str(p) for p in paths], entry)
    try:
        return analyze_source(source, smap, repo=repo, preferred_read=preferred_read, handed_files=handed_files), smap
    except SyntaxError as exc:
        at = smap.where(exc.lineno or 1)
        raise InputError(f"is not valid Python (line {at['line']}, column {exc.offset or 0}): {exc.msg}",
                         path=at["file"], line=at["line"]) from None


def _nothing(path: str, smap=None):
    from faultlib.detect.data.leakage.source import SourceMap
    from faultlib.detect.data.leakage.static import StaticReport

    return StaticReport(), smap or SourceMap(str(path), [])


def analyze_source(source: str, smap, *, repo=None, preferred_read=None, handed_files=()):
    """Analyse Python source text.

    Args:
        source: the module's text (a notebook's code cells joined, see
            :func:`faultlib.detect.data.leakage.source.notebook_source`).
        smap: a :class:`~faultlib.detect.data.leakage.source.SourceMap`: how lines map back to the user's file.
        repo, preferred_read, handed_files: see :func:`analyze_session`.

    Returns:
        :class:`~faultlib.detect.data.leakage.static.StaticReport` (findings ordered by line).

    Raises:
        SyntaxError: when nothing parses (see :func:`~faultlib.detect.data.leakage.source.parse_tolerant`); the
            caller turns it into :class:`~faultlib.errors.InputError` with the file and line.
        InputError: nested too deeply for the parser (:func:`~faultlib.readers.pysource.parse_python`).
    """
    from faultlib.detect.data.leakage import moduleflags
    from faultlib.detect.data.leakage.source import parse_tolerant
    from faultlib.detect.data.leakage.static import Analyzer, StaticReport
    from faultlib.findings import Finding, Severity, analysis_incomplete
    from faultlib.pyflow.interp import stack_room

    tree = parse_tolerant(source, smap)
    try:
        with stack_room():  # MAX_DEPTH inlined calls, whatever the caller's stack depth
            report, analyzer = _run_analyzer(Analyzer, tree, smap, repo, preferred_read, handed_files)
        used = vars(analyzer).get("switched")
        if used:  # a fit whose leak needs a branch switched off is a note naming the flag (moduleflags.py)
            try:
                with stack_room():
                    before = _run_analyzer(Analyzer, tree, smap, repo, preferred_read, handed_files,
                                           switches=False)[0].findings
            except RecursionError:
                before = []
            report.findings = moduleflags.switched_off_notes(report.findings, before, used, smap, Severity.INFO)
    except RecursionError:  # a tree the parser built but too deep for the analysis's own walks (the interpreter
        # stops by itself; its set-up and summaries do not): nothing is reported as seen, and never "ok"
        report = StaticReport(complete=False, stopped="could not start: the code is nested too deeply to "
                              "follow (Python's recursion limit)")
    for skip in smap.skipped:
        if "index" in skip:
            what, location = f"cell {skip['index']}", {"file": skip.get("file", smap.file), "index": skip["index"],
                                                       "line": 1}  # (a cell of a notebook it runs names that file)
        else:
            at, end = smap.where(skip["line"]), smap.where(skip["end_line"])
            what, location = f"lines {at['line']}-{end['line']}", at
        report.findings.append(Finding("leakage", Severity.INFO, f"{what} is not valid Python 3 ({skip['message']}): "
                                       "skipped, the rest was analysed", location, dict(skip), kind="code_not_parsed"))
    for notebook, cell, why in smap.unfollowed:  # code the notebook runs and nobody analysed (nbrun.py)
        report.findings.append(analysis_incomplete("leakage", f"cell {cell} runs a notebook that was not "
                                                   f"followed: {why}", {"file": notebook, "index": cell, "line": 1}))
    if not report.complete:  # never "ok" for what was not analysed (DESIGN)
        report.findings.append(analysis_incomplete("leakage", f"the analysis {report.stopped}; later code was not "
                                                   "analysed", {"file": smap.file}))
    report.complete = report.complete and not smap.unfollowed
    report.findings.sort(key=_finding_order(smap))
    return report


def _run_analyzer(Analyzer, tree, smap, repo, preferred_read, handed_files, *, switches: bool = True):
    """``(report, analyzer)``: one run of the analysis over ``tree``; ``switches``: branches under a module flag
    set off (``FLAG = False``) or an option no config module sets are not taken (moduleflags.py, configflags.py)."""
    from faultlib.detect.data.leakage import moduleflags
    from faultlib.detect.data.leakage.configflags import config_switches

    analyzer = Analyzer(tree, smap)
    analyzer.repo_files = repo
    analyzer.preferred_read = preferred_read
    analyzer.handed_files = tuple(handed_files)
    if switches:
        analyzer.switches = {**moduleflags.module_switches(tree, smap.default_lines()),
                             **config_switches(tree, smap.file)}
    return analyzer.run(), analyzer


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
