"""``faultlib check drift REF CUR``: has the distribution of CUR's columns moved away from REF's?

REF and CUR are tables in any format :func:`faultlib.readers.tables.read_table` reads (CSV, TSV,
JSON, JSON Lines, Parquet, NPY, NPZ), with the same columns. The engine is
:func:`faultlib.detect.data.drift.detect_drift`: per column KS (numbers) or chi-squared (categories) or
PSI, MMD on the numeric columns jointly, Benjamini-Hochberg across all of them, and a graded
response by PSI (record / alert / freeze). Thresholds come from flags, or from a YAML/JSON mapping
(``--thresholds cases/covariate_shift/case.yaml#repro.params.drift``), flags winning.

JSON fields beside ``detector``, ``ok`` and ``findings``: ``columns`` ``{name: {method, statistic,
p_value, drifted, p_adjusted, psi, kl, response, type, ...}}``, ``drifted`` (names, most shifted
first), ``response`` (``none|record|alert|freeze``), ``multivariate`` (MMD: ``statistic, p_value,
p_adjusted, drifted, bandwidth, permutations, evaluation, features, columns``, or null), ``method``,
``correction``, ``thresholds``, ``n_reference``, ``n_current``, ``complete``, ``untested`` (columns the time
budget did not reach), ``skipped`` (row keys: a column with a distinct integer in every row, named like an id or
a run of consecutive integers in each table whatever its name or position, is not a feature, and is left out
unless ``--columns`` names it), ``reference``, ``current``.

Bounded: ``--budget SECONDS`` (default 300, ``budget_s`` in ``--thresholds``) from the start, reading included:
a Parquet file is read a row group at a time and a CSV/TSV Arrow reads in 16 MiB blocks, and once the budget has
passed the reading stops (nothing is tested then: every column of that file is ``untested``, ``unread`` names the
file, the warning says how far the reading got); JSON, NPY/NPZ and CSVs pandas reads are read whole first. Columns
not tested by then are named in ``untested`` and in a warning of kind ``analysis_incomplete``
(``complete: false``, exit 1 at the default ``--fail-on``), never a silent hang. The summary shows at most
:data:`SUMMARY_COLUMNS` columns (drifted first); ``--json`` lists every one.

Missing values (empty cells, NaN, +-inf) are data: each column's missing share is tested with the rest
(``columns[name].missing: {reference_share, current_share, p_value, drifted, ...}``), the value tests run
on the present values.

Exit codes: 0 no finding at ``--fail-on`` (default warning: a significant shift with PSI >= 0.1, or
a significant MMD); 1 one; 2 unreadable files, mismatched columns or types (the message names the
file, column and line or row).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from faultlib.check.base import CheckResult, check_command
from faultlib.errors import InputError
from faultlib.readers.options import FiniteFloat

KINDS = {
    "column_drift": "a column's distribution changed significantly (BH-adjusted p <= alpha); severity by its PSI: "
                    "info = record (PSI < 0.1), warning = alert (PSI >= 0.1), error = freeze and retrain (PSI >= 0.25)",
    "multivariate_drift": "the numeric columns' joint distribution changed (MMD permutation test), possibly with no "
                          "single column significant: a change in how the columns move together",
    "new_category": "a categorical column holds categories the reference never had (informational)",
    "missing_share_drift": "a column's share of missing values (empty, NaN, +-inf) changed significantly, or it "
                           "became all-missing (freeze)",
    "key_column_skipped": "a column holds a distinct integer in every row and is named like an id or is a run of "
                          "consecutive integers: a row key, not a feature, "
                          "left out of the tests (informational; --columns NAME tests it)",
    "analysis_incomplete": "the time budget (--budget) ran out: the columns not reached, or the MMD test, were not "
                           "tested (complete: false)",
}
METHOD_CHOICES = ("psi", "ks", "chi2", "mmd", "all")


def _split(values: tuple[str, ...]) -> list[str]:
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _thresholds(ref: str):
    """The drift settings at ``FILE[#dotted.key]`` (a YAML or JSON mapping) applied to the defaults.

    Raises:
        InputError: unreadable file, a missing key, not a mapping, an unknown setting or a bad value
            (with the file, line and key).
    """
    from faultlib.detect.data.drift import DriftConfig
    from faultlib.readers import load_yaml_file

    file, _, key = ref.partition("#")
    doc = load_yaml_file(Path(file))
    node: Any = doc.data
    walked: list[str] = []
    for part in [p for p in key.split(".") if p]:
        if not isinstance(node, dict) or part not in node:
            raise InputError(f"has no key {'.'.join(walked + [part])!r} for --thresholds", path=file,
                             line=doc.line_of(tuple(walked)) if walked else None, field=".".join(walked + [part]))
        node = node[part]
        walked.append(part)
    if not isinstance(node, dict):
        raise InputError("--thresholds must point at a mapping of drift settings (alpha, alert_psi, freeze_psi, "
                         "bins, permutations, ...)", path=file, line=doc.line_of(tuple(walked)), field=key or None)
    try:
        return DriftConfig().updated(node, path=file, prefix=".".join(walked))
    except InputError as exc:
        field = exc.field.split(".")[-1] if exc.field else None
        line = doc.line_of((*walked, field)) if field in node else doc.line_of(tuple(walked))
        raise InputError(exc.message, path=file, line=line, field=exc.field) from None


def _config(thresholds: str | None, flags: dict[str, Any]):
    from faultlib.detect.data.drift import DriftConfig

    config = _thresholds(thresholds) if thresholds else DriftConfig()
    overrides = {k: v for k, v in flags.items() if v is not None}
    return config.updated(overrides, prefix="flags") if overrides else config


#: columns the summary shows one line each (the most shifted first, when there are more; ``--json`` lists every one):
#: 10,000 columns printed 10,000 lines
SUMMARY_COLUMNS = 25


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    fields = result.fields
    lines = []
    shown = list(fields["columns"].items())
    if len(shown) > SUMMARY_COLUMNS:
        shown = sorted(shown, key=lambda item: (not item[1]["drifted"], -item[1]["psi"]))[:SUMMARY_COLUMNS]
    for name, col in shown:
        gap = col.get("missing") or {}
        holes = (f"; missing {gap['reference_share']:.1%} -> {gap['current_share']:.1%}"
                 + (" (drifted)" if gap["drifted"] else "")) if gap.get("tested") else ""
        lines.append((name, f"{col['method']} {col['statistic']:.4g}, p={col['p_value']:.2g} "
                            f"(BH {col['p_adjusted']:.2g}), PSI {col['psi']:.3f}{holes} -> {col['response']}"))
    joint = fields["multivariate"]
    if joint:
        lines.append(("mmd", f"MMD^2 {joint['statistic']:.4g} over {len(joint['columns'])} numeric column(s), "
                             f"p={joint['p_value']:.2g} (BH {joint['p_adjusted']:.2g}, {joint['evaluation']}, "
                             + (f"{joint['permutations']} permutations)" if joint["permutations"]
                                else "asymptotic null)")))
    if len(shown) < len(fields["columns"]):
        lines.append(("...", f"and {len(fields['columns']) - len(shown):,} more column(s) of {len(fields['columns']):,}, "
                             f"not shown (the {len(shown)} above: drifted first, then by PSI; --json lists every one)"))
    if fields["skipped"]:
        lines.append(("skipped", ", ".join(fields["skipped"]) + ": row keys (a distinct integer id in every row)"))
    if fields["untested"]:
        lines.append(("untested", f"{len(fields['untested']):,} column(s): the time budget ran out (see the "
                                  "analysis_incomplete finding)"))
    drifted = fields["drifted"]
    lines.append(("drifted", ", ".join(drifted[:SUMMARY_COLUMNS]) + (f" and {len(drifted) - SUMMARY_COLUMNS:,} more"
                                                                      if len(drifted) > SUMMARY_COLUMNS else "")
                  or "none"))
    lines.append(("response", fields["response"]))
    return lines


class _Quiet:
    def update(self, _text) -> None:
        pass


def _cut_short(cut, method: str, config, reference: Path, current: Path) -> CheckResult:
    """The report of a comparison whose budget ran out while a table was read: nothing tested, every column of
    that file untested, ``complete: false`` and an ``analysis_incomplete`` warning naming how far the reading got."""
    from faultlib.detect.data.drift import DriftReport
    from faultlib.findings import analysis_incomplete

    why = (f"the time budget of {config.budget_s:g} s ran out while reading: {cut}; no column was tested: raise it "
           "(--budget or budget_s), or compare smaller samples")
    report = DriftReport({}, None, method, config, 0, 0, [analysis_incomplete("drift", why, {"file": cut.path})],
                         untested=list(cut.columns), complete=False)
    return CheckResult("drift", report.findings, {**report.to_json(), "reference": str(reference),
                                                  "current": str(current), "unread": cut.path})


@contextmanager
def _status(text: str):
    """A transient status line on stderr while the tables are read and tested, only where stderr is a terminal
    (a log or a pipe gets nothing): wide tables take long (2,000 rows x 3,000 columns: about 35 s, linear in the
    columns) and a silent terminal reads as a hang. Yields an object whose ``update(Text)`` changes the line."""
    from faultlib import console

    if not console.stderr.is_terminal:
        yield _Quiet()
        return
    with console.stderr.status(Text(text)) as status:
        yield status


@check_command("drift", summary=_summary, help=(
    "Has the distribution of CUR's columns moved away from REF's (covariate shift)?"
    "\n\nREF and CUR are CSV, TSV, JSON, JSONL, Parquet, NPY or NPZ tables with the same columns. "
    "Exit 0 when no finding reaches --fail-on, 1 when one does, 2 for unreadable or mismatched input."))
@click.argument("reference", metavar="REF", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("current", metavar="CUR", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--method", type=click.Choice(METHOD_CHOICES), default="all", show_default=True,
              help="all: KS (numbers) / chi-squared (categories) per column, PSI as effect size, and MMD jointly.")
@click.option("--columns", multiple=True, metavar="NAME[,NAME...]",
              help="Compare only these columns (repeat or comma-separate). Default: all, which must match.")
@click.option("--categorical", multiple=True, metavar="NAME[,NAME...]",
              help="Treat these numeric columns as categories (codes, ids).")
@click.option("--thresholds", metavar="FILE[#KEY.PATH]",
              help="YAML/JSON mapping of drift settings (alpha, alert_psi, freeze_psi, bins, ...), e.g. "
                   "case.yaml#repro.params.drift in cases/covariate_shift.")
@click.option("--alpha", type=FiniteFloat(0, 1),
              help="Significance after Benjamini-Hochberg [default: 0.05].")
@click.option("--alert-psi", type=FiniteFloat(0, min_open=False), help="PSI of an alert [default: 0.1, rule of thumb].")
@click.option("--freeze-psi", type=FiniteFloat(0, min_open=False), help="PSI of freeze-and-retrain [default: 0.25, rule of thumb].")
@click.option("--bins", type=click.IntRange(2), help="Most reference-quantile bins per numeric column [default: 10].")
@click.option("--permutations", type=click.IntRange(19), help="MMD permutations [default: 500].")
@click.option("--seed", type=click.IntRange(0), help="Seed of the MMD permutations and features [default: 0].")
@click.option("--budget", type=FiniteFloat(0), metavar="SECONDS",
              help="Most seconds for reading and testing; columns not reached are reported untested "
                   "(complete: false, exit 1) [default: 300].")
def command(reference: Path, current: Path, method: str, columns: tuple[str, ...], categorical: tuple[str, ...],
            thresholds: str | None, alpha: float | None, alert_psi: float | None, freeze_psi: float | None,
            bins: int | None, permutations: int | None, seed: int | None, budget: float | None) -> CheckResult:
    import time

    from faultlib.detect.data.drift import detect_drift
    from faultlib.readers.tables import read_table

    from faultlib.readers.budget import ReadCut

    started = time.monotonic()
    config = _config(thresholds, {"alpha": alpha, "alert_psi": alert_psi, "freeze_psi": freeze_psi, "bins": bins,
                                  "permutations": permutations, "seed": seed, "budget_s": budget})
    deadline = started + config.budget_s
    with _status(f"check drift: reading {reference}") as status:
        try:
            ref_table = read_table(reference, deadline=deadline)
            status.update(Text(f"check drift: reading {current}"))
            cur_table = read_table(current, deadline=deadline)
        except ReadCut as cut:
            return _cut_short(cut, method, config, reference, current)
        testing = (f"check drift: testing {ref_table.shape[1]:,} column(s) of {len(ref_table):,} and {len(cur_table):,} "
                   "rows")
        status.update(Text(testing))
        report = detect_drift(ref_table, cur_table, method=method, columns=_split(columns) or None,
                              categorical=_split(categorical), config=config, reference_source=str(reference),
                              current_source=str(current), started=started,
                              progress=lambda done, total: status.update(Text(f"{testing}: {done:,} done")))
    return CheckResult("drift", report.findings,
                       {**report.to_json(), "reference": str(reference), "current": str(current)})
