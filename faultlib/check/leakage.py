"""``faultlib check leakage``: preprocessing leakage in a script or notebook, or in a saved scaler.

Two modes (exactly one per call)::

    faultlib check leakage FILE.py|NOTEBOOK.ipynb [--alone]
    faultlib check leakage FIRST.py ... LAST.py
    faultlib check leakage --fitted PARAMS.json --train TRAIN --test TEST [--allow-pickle]
    faultlib check leakage --train TRAIN --test TEST [--group COL]

JSON fields (besides ``detector``, ``ok``, ``findings``): ``mode`` (``static`` or ``fitted``).
Static: ``file`` (the script asked about when one is given, even if siblings joined it; ``null`` when several are
given: the report is about all of them, none is *the* file), ``files`` (every script analysed,
in the order they ran: several given, or the siblings one script needs, see
:mod:`faultlib.detect.data.leakage.session`; each finding's ``location.file`` names its own), ``cells`` (code cells of
a notebook, else ``null``), ``complete`` (false when the
analysis stopped early: its operation budget, or a construct it does not model), ``stopped`` (why, or ``null``), ``fits`` (every fit of a preprocessing step the analysis
saw: ``estimator``, ``variable``, ``file``, ``line``, ``index`` (cell), ``function``, ``rows``,
``supervised``). Fitted: ``fitted_on`` (``train``, ``test``, ``train+test``, a slice such as
``(train+test)[:800]``, or ``unknown``), ``scaler``, ``features``, ``columns``, ``n_samples_seen``,
``candidates`` (``{name: {rows, matches, max_mean_error, max_var_error, n_samples_match,
includes_test}}``), and with ``--allow-pickle`` ``pickle_globals`` (what the pickle imports, listed on stderr
before it is unpickled). Data (``--train``/``--test`` without ``--fitted``): ``rows`` (``{train, test}``),
``columns`` (compared), ``duplicates`` (``{test_rows_in_train, distinct_rows, share, examples}``),
``group`` (``{column, shared_ids, train_ids, test_ids, test_rows, examples}`` or ``null``); kinds
``duplicate_rows_across_split``, ``entity_across_split``.
"""

from __future__ import annotations

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.text import inline

__getattr__ = lazy_kinds("faultlib.detect.data.leakage")
__all__ = ["KINDS", "command"]


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    if f["mode"] == "data":
        d = f["duplicates"]
        lines = [("rows", f"train {f['rows']['train']}, test {f['rows']['test']}"),
                 ("test rows also in train", f"{d['test_rows_in_train']} ({d['share']:.1%})")]
        if f["group"]:
            g = f["group"]
            lines.append((f"shared {g['column']}", f"{g['shared_ids']} of {g['test_ids']} ({g['test_rows']} test rows)"))
        return lines
    if f["mode"] == "fitted":
        lines = [("fitted on", f["fitted_on"])]
        for name, c in f["candidates"].items():
            lines.append((f"  {name}", f"{c['rows']} rows, mean off by {c['max_mean_error']:.3g} sd"
                                       f"{' (match)' if c['matches'] else ''}"))
        return lines
    lines = [("preprocessing fits seen", str(len(f["fits"])))]
    if len(f["files"]) > 1:
        lines.append(("analysed as one program", ", then ".join(f["files"])))
    return lines


@check_command("leakage", summary=_summary,
               help="Find preprocessing leakage. Static: FILE.py or NOTEBOOK.ipynb, analysed for transformers and "
                    "selectors fitted before the split, on test rows, outside cross-validation, or reused across "
                    "folds. Several .py files run in the order given as one program (one session: %run a.py, then "
                    "b.py); one .py script is joined with the sibling scripts it imports (from helpers import f) or "
                    "calls functions of without defining them (a framework run first), unless --alone. Fitted: "
                    "--fitted PARAMS.json --train T --test T says which rows a saved scaler "
                    "(mean_, var_/scale_, n_samples_seen_) was fitted on. Data: --train T --test T [--group COL] "
                    "counts test rows that also appear in the training table and, with --group, entity ids "
                    "(patient, user, session) on both sides.")
@click.argument("files", nargs=-1)
@click.option("--fitted", "fitted_path", metavar="PARAMS", default=None,
              help="A fitted scaler's statistics: JSON/YAML (FILE#key.path), or a pickle with --allow-pickle.")
@click.option("--train", "train_path", metavar="TABLE", default=None, help="The training table.")
@click.option("--test", "test_path", metavar="TABLE", default=None, help="The test table.")
@click.option("--alone", is_flag=True,
              help="Static: analyse the one script by itself, without the sibling scripts it imports or needs.")
@click.option("--allow-pickle", is_flag=True, help="Allow --fitted to be a pickle (runs code from it: trusted files only).")
@click.option("--features", "features", metavar="COL[,COL...]", default=None,
              help="With --fitted: the columns the scaler was fitted on, in order (default: its saved "
                   "feature_names_in_ / features, else every numeric column).")
@click.option("--group", "group", metavar="COL", default=None,
              help="Data mode: an entity id column (patient, user, session, device) whose ids must not be on both "
                   "sides.")
def command(files: tuple[str, ...], fitted_path: str | None, train_path: str | None, test_path: str | None,
            allow_pickle: bool, features: str | None = None, group: str | None = None,
            alone: bool = False) -> CheckResult:
    file = files[-1] if files else None
    if len(files) > 1 and fitted_path is not None:
        raise click.UsageError("give either FILE.py ... or --fitted, not both")
    if alone and (len(files) != 1 or fitted_path is not None):
        raise click.UsageError("--alone goes with one FILE.py")
    if fitted_path is None and file is None and (train_path or test_path):
        if features:
            raise click.UsageError("--features goes with --fitted")
        return _data_mode(train_path, test_path, group, allow_pickle)
    if group is not None:
        raise click.UsageError("--group goes with --train TABLE --test TABLE (without --fitted)")
    if fitted_path is None:
        if file is None:
            raise click.UsageError("give FILE.py|NOTEBOOK.ipynb, --fitted PARAMS --train TABLE --test TABLE, or "
                                   "--train TABLE --test TABLE")
        if train_path or test_path or allow_pickle or features:
            raise click.UsageError("--train, --test, --features and --allow-pickle go with --fitted")
        from faultlib.detect.data.leakage import analyze_file, analyze_session

        report, smap = analyze_session(list(files)) if len(files) > 1 else analyze_file(file, alone=alone)
        fields = {"mode": "static", "file": file if len(files) == 1 else None, "files": [f for f, _, _ in smap.files] if smap.files else [file],
                  "cells": len(smap.cells) if smap.cells else None,
                  "complete": report.complete, "stopped": report.stopped, "fits": [f.to_json() for f in report.fits]}
        return CheckResult("leakage", report.findings, fields)
    if file is not None:
        raise click.UsageError("give either FILE.py|NOTEBOOK.ipynb or --fitted, not both")
    if not train_path or not test_path:
        raise click.UsageError("--fitted needs --train TABLE and --test TABLE")
    from faultlib.detect.data.leakage.fitted import compare_fitted, load_fitted
    from faultlib.readers.tables import read_table

    imports = _list_pickle_globals(fitted_path) if allow_pickle else None
    fitted = load_fitted(fitted_path, allow_pickle=allow_pickle)
    train, test = read_table(train_path), read_table(test_path)
    names = [n.strip() for n in features.split(",") if n.strip()] if features else None
    report = compare_fitted(fitted, train, test, train_path=train_path, test_path=test_path, features=names)
    extra = {"pickle_globals": imports} if imports is not None else {}
    return CheckResult("leakage", report.findings, {"mode": "fitted", **report.fields(), **extra})


def _list_pickle_globals(spec: str) -> list[str] | None:
    """Before ``--allow-pickle`` unpickles ``spec``: the globals the pickle imports (and may call), found statically
    (:func:`~faultlib.detect.checkpoints.reader.pickle_globals`, nothing run) and printed on stderr, those that run
    a command or code first; the file is then loaded as the flag says. None for a file that is no pickle.

    A compressed joblib file (zlib, gzip, bz2, xz) is listed as what it is: its pickle is not read here."""
    from faultlib.console import stderr
    from faultlib.detect.checkpoints.reader import pickle_globals, runs_code
    from faultlib.detect.data.leakage.fitted import PICKLE_SUFFIXES
    from faultlib.readers import read_bytes
    from faultlib.readers.keypath import split_source

    path, _ = split_source(spec)
    if not path.lower().endswith(PICKLE_SUFFIXES):
        return None
    data = read_bytes(path)
    compressed = next((name for magic, name in _COMPRESSED if data.startswith(magic)), None)
    found = [] if compressed else pickle_globals(data)
    dangerous = [name for name in found if runs_code(name)]
    listed = ", ".join(dangerous + [name for name in found if name not in dangerous]) or "none"
    stderr.print(f"--allow-pickle: unpickling {inline(path)}, which imports and may call: "
                 + (f"(not listed: {compressed}-compressed)" if compressed else inline(listed)),
                 markup=False, highlight=False)
    if dangerous:
        stderr.print(f"warning: {inline(', '.join(dangerous))}: a command or code run on unpickling, which a saved "
                     "scaler never needs (loading it anyway, as --allow-pickle asks)", markup=False, highlight=False,
                     style="red")
    return found


#: magic numbers of the compressors joblib writes with (``joblib.dump(..., compress=...)``)
_COMPRESSED = [(b"\x78", "zlib"), (b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ", "xz"), (b"\x5d\x00\x00", "lzma")]


def _data_mode(train_path: str | None, test_path: str | None, group: str | None, allow_pickle: bool) -> CheckResult:
    """``--train T --test T [--group COL]``: rows and entity ids the two tables share."""
    if not train_path or not test_path:
        raise click.UsageError("the data mode needs both --train TABLE and --test TABLE")
    if allow_pickle:
        raise click.UsageError("--allow-pickle goes with --fitted")
    from faultlib.detect.data.leakage.overlap import compare_tables
    from faultlib.readers.tables import read_table

    report = compare_tables(read_table(train_path), read_table(test_path), group=group, train_path=train_path,
                            test_path=test_path)
    return CheckResult("leakage", report.findings, {"mode": "data", **report.fields()})
