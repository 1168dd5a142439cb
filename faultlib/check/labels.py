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

from faultlib.check.base import CheckResult, check_command
from faultlib.detect.data.labels import KINDS, compare_label_maps, decode_accuracy
from faultlib.detect.data.label_maps import load_label_map
from faultlib.errors import InputError

__all__ = ["KINDS", "command", "read_predictions"]

PREDICTION_COLUMNS = ["true_label", "predicted_index"]


def read_predictions(path: str) -> list[tuple[str, int]]:
    """``(true_label, predicted_index)`` rows of a predictions table (CSV, TSV, JSON, JSONL, Parquet, NPY, NPZ).

    Raises:
        InputError: unreadable table, a missing column, an empty cell or NaN, or a ``predicted_index``
            that is not a whole number (each with the file and the line for CSV/TSV, else the row).
    """
    import math

    from faultlib.readers.tables import read_table, require_columns

    frame = read_table(path)
    require_columns(frame, PREDICTION_COLUMNS, path)
    text_lines = Path(path).suffix.lower() in (".csv", ".tsv")
    rows: list[tuple[str, int]] = []
    for row, (truth, index) in enumerate(zip(frame["true_label"].tolist(), frame["predicted_index"].tolist())):
        line = row + 2 if text_lines else None  # header on line 1
        for column, value in (("true_label", truth), ("predicted_index", index)):
            if value is None or (isinstance(value, float) and math.isnan(value)) or str(value) == "<NA>":
                raise InputError(f"{column} is empty or NaN in row {row}", path=path, line=line,
                                 field=f"{column}[{row}]")
        if isinstance(index, float):
            if not index.is_integer():
                raise InputError(f"predicted_index {index!r} in row {row} is not a whole number", path=path,
                                 line=line, field=f"predicted_index[{row}]")
            index = int(index)
        elif not isinstance(index, int) or isinstance(index, bool):
            try:
                index = int(str(index).strip())
            except ValueError:
                raise InputError(f"predicted_index {index!r} in row {row} is not an integer", path=path, line=line,
                                 field=f"predicted_index[{row}]") from None
        rows.append((str(truth), index))
    return rows


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
              help="Predictions to score with each map: columns true_label and predicted_index "
                   "(CSV, TSV, JSON, JSONL, Parquet, NPY, NPZ).")
def command(train: str, serving: str, predictions: str | None) -> CheckResult:
    train_map = load_label_map(train)
    serving_map = load_label_map(serving)
    report = compare_label_maps(train_map, serving_map)
    if predictions is not None:
        rows = read_predictions(predictions)
        decode_accuracy(train_map, serving_map, rows, source=predictions)  # validates against the training map
        report = compare_label_maps(train_map, serving_map, predictions=rows)
    return CheckResult("labels", list(report.findings), report.fields())
