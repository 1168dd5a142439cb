"""Leakage seen in the data itself: rows and entities that a training table and a test table share.

``faultlib check leakage --train T --test T [--group COL]`` (no ``--fitted``):

* ``duplicate_rows_across_split``: test rows that also appear, value for value over the columns both tables
  have, in the training table (a model can memorise them; scores on them say nothing about new rows);
* ``entity_across_split`` (with ``--group COL``): ids of ``COL`` (a patient, user, session, device) present in
  both tables: the model is scored on entities it has already seen (Kaufman et al., "Leakage in data mining",
  TKDD 2012; scikit-learn user guide, "Cross-validation iterators for grouped data").

Rows are compared by a hash of their values (:func:`pandas.util.hash_pandas_object`, index ignored); a NaN
equals a NaN, as in :meth:`pandas.DataFrame.duplicated`. What the tables hold (NaN, duplicates) is data: it is
counted, never refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faultlib.findings import Finding, Severity

DETECTOR = "leakage"
EXAMPLES = 10  # ids and row pairs shown in the evidence


@dataclass
class OverlapReport:
    """Counts of what the training and test tables share.

    Attributes:
        rows: ``{"train": n, "test": n}``.
        columns: the columns compared (those both tables have, in the training table's order).
        duplicates: ``{"test_rows_in_train", "distinct_rows", "share", "examples": [{"test_index", "train_index"}]}``.
        group: ``{"column", "shared_ids", "train_ids", "test_ids", "test_rows", "examples"}`` or ``None``.
    """

    rows: dict[str, int]
    columns: list[str]
    duplicates: dict[str, Any]
    group: dict[str, Any] | None = None
    findings: list[Finding] = field(default_factory=list)

    def fields(self) -> dict[str, Any]:
        return {"rows": self.rows, "columns": self.columns, "duplicates": self.duplicates, "group": self.group}


def _label(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def compare_tables(train, test, *, group: str | None = None, train_path: str = "train",
                   test_path: str = "test") -> OverlapReport:
    """Count the rows and the ``group`` ids a training and a test table share.

    Args:
        train, test: the tables (pandas DataFrames, string column names).
        group: an entity id column both tables have, or ``None``.
        train_path, test_path: the files, for messages.

    Returns:
        :class:`OverlapReport` with one finding per kind of overlap found.

    Raises:
        InputError: the tables have no column in common, or ``group`` is missing from one of them.
    """
    import pandas as pd

    from faultlib.errors import InputError
    from faultlib.readers.tables import require_columns

    columns = [c for c in train.columns if c in set(test.columns)]
    if not columns:
        raise InputError(f"has no column in common with {train_path}: nothing to compare", path=test_path)
    if group is not None:
        require_columns(train, [group], train_path)
        require_columns(test, [group], test_path)
    train_hash = pd.util.hash_pandas_object(train[columns], index=False)
    test_hash = pd.util.hash_pandas_object(test[columns], index=False)
    first_in_train = dict(zip(train_hash.to_numpy()[::-1], train.index.to_numpy()[::-1]))
    shared = test_hash.isin(first_in_train.keys())
    n_shared = int(shared.sum())
    examples = [{"test_index": _label(i), "train_index": _label(first_in_train[h])}
                for i, h in zip(test.index[shared.to_numpy()][:EXAMPLES], test_hash[shared].to_numpy()[:EXAMPLES])]
    duplicates = {"test_rows_in_train": n_shared, "distinct_rows": int(test_hash[shared].nunique()),
                  "share": round(n_shared / len(test), 6) if len(test) else 0.0, "examples": examples}
    report = OverlapReport({"train": len(train), "test": len(test)}, [str(c) for c in columns], duplicates)
    if n_shared:
        report.findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"{n_shared} of {len(test)} test rows ({duplicates['share']:.1%}) also appear in the training table "
            f"({duplicates['distinct_rows']} distinct rows; compared over {len(columns)} common columns), first "
            f"test row {examples[0]['test_index']} = training row {examples[0]['train_index']}. Fix: drop "
            "duplicates before splitting, or split by a key that keeps copies together",
            {"file": test_path}, {k: v for k, v in duplicates.items()}, kind="duplicate_rows_across_split"))
    if group is not None:
        train_ids, test_ids = set(train[group].dropna().tolist()), set(test[group].dropna().tolist())
        common = train_ids & test_ids
        rows = int(test[group].isin(common).sum())
        report.group = {"column": group, "shared_ids": len(common), "train_ids": len(train_ids),
                        "test_ids": len(test_ids), "test_rows": rows,
                        "examples": [str(v) for v in sorted(common, key=str)[:EXAMPLES]]}
        if common:
            report.findings.append(Finding(
                DETECTOR, Severity.WARNING,
                f"{len(common)} of {len(test_ids)} {group} values in the test table also appear in the training "
                f"table ({rows} test rows), e.g. {', '.join(report.group['examples'][:3])}: the model is scored on "
                "entities it has seen. Fix: split by group (GroupShuffleSplit, GroupKFold)",
                {"file": test_path, "column_name": group}, dict(report.group), kind="entity_across_split"))
    return report


__all__ = ["OverlapReport", "compare_tables"]
