"""``faultlib check labels TRAIN SERVING [--predictions FILE]``: label mapping drift between training and serving.

JSON fields (besides ``detector``, ``ok``, ``findings``): ``train_labels`` and ``serving_labels``
(labels by index, ``null`` at a gap), ``missing``, ``extra``, ``mismatched_indices``
(``[{index, train, serving}]``), ``permutation`` (``{training index: serving index}``, keys as
strings), ``renamed`` (``[{train, serving}]``) and ``accuracy`` (``{training_mapping,
serving_mapping, predictions, undecodable}`` with ``--predictions``, else ``null``).
"""

from __future__ import annotations

from pathlib import Path

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.errors import InputError
from faultlib.findings import Finding, Severity

__getattr__ = lazy_kinds("faultlib.detect.data.labels")
__all__ = ["KINDS", "command", "read_prediction_rows", "read_predictions"]

PREDICTION_COLUMNS = ["true_label", "predicted_index"]
#: column names recognised, in order, when --true-col / --pred-col are not given (scikit-learn's y_true /
#: y_pred, Keras/pandas habits, Hugging Face's label / prediction)
TRUE_NAMES = ("true_label", "y_true", "label", "labels", "target", "truth", "ground_truth", "actual", "gold", "y")
PRED_NAMES = ("predicted_index", "y_pred", "pred", "prediction", "predictions", "predicted", "pred_index",
              "predicted_class", "class_index", "pred_label_id", "argmax")
MISSING_KIND = "missing_predictions"


def _column(frame, given: str | None, names: tuple[str, ...], flag: str, path: str) -> str:
    from faultlib.readers.tables import require_columns

    if given is not None:
        require_columns(frame, [given], path)
        return given
    lowered = {str(c).lower(): str(c) for c in frame.columns}
    for name in names:
        if name in lowered:
            return lowered[name]
    raise InputError(f"has no column named like {', '.join(names[:6])}...; its columns are "
                     f"{', '.join(map(repr, frame.columns))}: name yours with {flag}", path=path, field=names[0])


def _missing(value) -> bool:
    import math

    return (value is None or (isinstance(value, float) and not math.isfinite(value)) or str(value) in ("<NA>", "")
            or (isinstance(value, str) and value.strip().lower() in ("nan", "inf", "-inf", "+inf")))


def read_prediction_rows(path: str, *, true_col: str | None = None, pred_col: str | None = None
                         ) -> tuple[list[tuple[str, int]], dict]:
    """``(true_label, predicted_index)`` rows of a predictions table (CSV, TSV, JSON, JSONL, Parquet, NPY, NPZ)
    and what was left out.

    Args:
        path: the table.
        true_col, pred_col: the columns; ``None`` recognises common names (:data:`TRUE_NAMES`,
            :data:`PRED_NAMES`, case-insensitive).

    Returns:
        ``(rows, skipped)``: the complete rows, and ``{"rows", "first_row", "first_line", "true_col",
        "pred_col"}`` for rows whose label or index is empty, NaN or infinite (data: left out and reported).

    Raises:
        InputError: unreadable table, no such column, or a ``predicted_index`` that is not a whole number
            (each with the file and the line for CSV/TSV, else the row).
    """
    from faultlib.readers.tables import read_table

    frame = read_table(path)
    true_col = _column(frame, true_col, TRUE_NAMES, "--true-col", path)
    pred_col = _column(frame, pred_col, PRED_NAMES, "--pred-col", path)
    text_lines = Path(path).suffix.lower() in (".csv", ".tsv")
    rows: list[tuple[str, int]] = []
    skipped: list[int] = []
    for row, (truth, index) in enumerate(zip(frame[true_col].tolist(), frame[pred_col].tolist())):
        line = row + 2 if text_lines else None  # header on line 1
        if _missing(truth) or _missing(index):
            skipped.append(row)
            continue
        if isinstance(index, float):
            if not index.is_integer():
                raise InputError(f"{pred_col} {index!r} in row {row} is not a whole number", path=path,
                                 line=line, field=f"{pred_col}[{row}]")
            index = int(index)
        elif not isinstance(index, int) or isinstance(index, bool):
            try:
                index = int(str(index).strip())
            except ValueError:
                raise InputError(f"{pred_col} {index!r} in row {row} is not an integer", path=path, line=line,
                                 field=f"{pred_col}[{row}]") from None
        rows.append((str(truth), index))
    info = {"rows": len(skipped), "of": len(frame), "true_col": true_col, "pred_col": pred_col,
            "first_row": skipped[0] if skipped else None,
            "first_line": (skipped[0] + 2 if text_lines else None) if skipped else None}
    return rows, info


def read_predictions(path: str) -> list[tuple[str, int]]:
    """The complete ``(true_label, predicted_index)`` rows of a predictions table (see :func:`read_prediction_rows`).

    Raises:
        InputError: as :func:`read_prediction_rows`.
    """
    return read_prediction_rows(path)[0]


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    lines = [("training labels", str(len([x for x in f["train_labels"] if x is not None]))),
             ("serving labels", str(len([x for x in f["serving_labels"] if x is not None])))]
    moved = {k: v for k, v in f["permutation"].items() if int(k) != v}
    if moved:
        lines.append(("permutation (training -> serving index)", ", ".join(f"{k}->{v}" for k, v in moved.items())))
    if f["missing"]:
        lines.append(("missing in serving", ", ".join(f["missing"])))
    if f["extra"]:
        lines.append(("extra in serving", ", ".join(f["extra"])))
    if f["accuracy"]:
        a = f["accuracy"]
        lines.append(("accuracy", f"{a['training_mapping']:.4f} with the training map, {a['serving_mapping']:.4f} "
                                  f"with the serving map ({a['predictions']} predictions)"))
    return lines


@check_command("labels", summary=_summary,
               help="Compare the label map a model was trained with (TRAIN) with the one serving decodes with "
                    "(SERVING). Each is a JSON/YAML list, an id2label or label2id dict, a text file with one label "
                    "per line, or FILE#dotted.key.path inside a larger JSON/YAML file. With --predictions "
                    "(columns true_label, predicted_index) the accuracy decoded with each map is reported.")
@click.argument("train")
@click.argument("serving")
@click.option("--predictions", metavar="TABLE", default=None,
              help="Predictions to score with each map (CSV, TSV, JSON, JSONL, Parquet, NPY, NPZ): a true-label "
                   "column and a predicted-index column (see --true-col, --pred-col).")
@click.option("--true-col", metavar="COL", default=None,
              help="The true-label column [default: the first of true_label, y_true, label, target, truth, "
                   "ground_truth, actual, gold, y].")
@click.option("--pred-col", metavar="COL", default=None,
              help="The predicted-index column [default: the first of predicted_index, y_pred, pred, prediction, "
                   "predicted, pred_index, predicted_class, class_index].")
def command(train: str, serving: str, predictions: str | None, true_col: str | None,
            pred_col: str | None) -> CheckResult:
    if predictions is None and (true_col or pred_col):
        raise click.UsageError("--true-col and --pred-col go with --predictions")
    from faultlib.detect.data.label_maps import load_label_map
    from faultlib.detect.data.labels import compare_label_maps, decode_accuracy

    train_map = load_label_map(train)
    serving_map = load_label_map(serving)
    report = compare_label_maps(train_map, serving_map)
    extra: list[Finding] = []
    if predictions is not None:
        rows, skipped = read_prediction_rows(predictions, true_col=true_col, pred_col=pred_col)
        if skipped["rows"]:
            where = {"file": predictions, "index": skipped["first_row"]}
            if skipped["first_line"] is not None:
                where["line"] = skipped["first_line"]
            extra.append(Finding(
                "labels", Severity.WARNING,
                f"{skipped['rows']} of {skipped['of']} prediction rows have no {skipped['true_col']} or "
                f"{skipped['pred_col']} (empty, NaN or infinite): left out of the accuracy",
                {**where, "column_name": skipped["pred_col"]}, skipped, kind=MISSING_KIND))
        if rows:
            decode_accuracy(train_map, serving_map, rows, source=predictions)  # validates against the training map
            report = compare_label_maps(train_map, serving_map, predictions=rows)
    return CheckResult("labels", list(report.findings) + extra, report.fields())
