"""``faultlib check batching FILE.py:NAME --batch-size N [--collate FILE.py:FN]``.

Which batches of your dataset the collate function cannot stack, before any training: the dataset
is walked in DataLoader order (index order, or ``--shuffle-seed N`` for ``shuffle=True`` with a
``torch.Generator().manual_seed(N)``) and every batch goes through the collate function
(``default_collate`` unless ``--collate`` names one). See :mod:`faultlib.detect.data.batching` for the
kinds and :mod:`faultlib.remedies` for the remedies (``pad_collate``, ``BucketBatchSampler``).

Importing the user's file is what this check is for: ``NAME`` is a ``Dataset`` class (called with no
arguments) or a zero-argument factory defined in ``FILE.py``. The file is read through the hardened
reader (a regular ``.py`` file, no symlink, UTF-8) and executed with importlib as a fresh module, its
directory first on ``sys.path`` while the check runs (so its own imports resolve); nothing is run
through a shell. What the user's code prints goes to stderr, so ``--json`` stays one object on stdout.

Exit codes: 0 when every batch collates (no finding at or above ``--fail-on``), 1 when one does not,
2 when the file is not a readable Python file, does not import, has no ``NAME``, or ``NAME()`` fails
(the message names the file and line).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.errors import DetectorError, InputError
from faultlib.readers.pymodule import load_module, resolve, split_target, user_code, user_line

__getattr__ = lazy_kinds("faultlib.detect.data.batching")


def _definition_line(obj: Any) -> int | None:
    try:
        return inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return None


def build_dataset(target: str) -> tuple[Any, dict[str, Any]]:
    """Load ``FILE.py:NAME`` and call ``NAME()``; returns the dataset and its location."""
    path, name = split_target(target, "FILE.py:NAME")
    with user_code(path.resolve() if path.exists() else path):
        module = load_module(path, option="dataset")
        factory = resolve(module, path, name, "dataset", defined_here=True)
        if not callable(factory):
            raise InputError(f"{name} is a {type(factory).__name__}: NAME must be a Dataset class or a zero-argument "
                             "factory", path=str(path), field=name)
        try:
            dataset = factory()
        except Exception as exc:  # noqa: BLE001 - the user's constructor
            raise InputError(f"{name}() raised {type(exc).__name__}: {exc}", path=str(path),
                             line=user_line(exc, path.resolve()), field=name) from None
    if type(dataset).__name__ == "DataLoader" and hasattr(dataset, "dataset"):
        raise InputError(f"{name}() returned a DataLoader: point NAME at a factory of its dataset, and give its "
                         "batch size (--batch-size), collate function (--collate) and shuffle seed (--shuffle-seed)",
                         path=str(path), field=name)
    if not (hasattr(dataset, "__getitem__") or hasattr(dataset, "__iter__")):
        raise InputError(f"{name}() returned a {type(dataset).__name__}, not a dataset (it needs __len__ and "
                         "__getitem__, or __iter__)", path=str(path), field=name)
    location: dict[str, Any] = {"file": str(path), "function": name}
    line = _definition_line(factory)
    if line is not None:
        location["line"] = line
    return dataset, location


def load_collate(target: str) -> Any:
    path, name = split_target(target, "--collate")
    with user_code(path.resolve() if path.exists() else path):
        module = load_module(path, option="--collate")
        fn = resolve(module, path, name, "--collate", defined_here=True)
    if not callable(fn):
        raise InputError(f"--collate: {name} is a {type(fn).__name__}, not a function", path=str(path), field=name)
    return fn


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    lines = [("order", f"{f['order']}, {f['batches_checked']} batches of {f['batch_size']}, collate {f['collate']}"),
             ("failing batches", f"{len(f['failing_batches'])} {f['failing_batches'][:12]}"
                                 f"{' ...' if len(f['failing_batches']) > 12 else ''}")]
    if f["lengths"]:
        d = f["lengths"]
        lines.append(("lengths", f"field {d['field']} dim {d['dim']}: min {d['min']}, p50 {d['p50']:g}, "
                                 f"p90 {d['p90']:g}, max {d['max']}, mean {d['mean']:g}"))
    if f["padding_waste"]:
        w = f["padding_waste"]
        lines.append(("padding waste", f"pad to batch max {w['pad_to_batch_max']['fraction']:.1%} "
                                       f"({w['pad_to_batch_max']['pad']} pad positions), length buckets "
                                       f"{w['bucketed']['fraction']:.1%} ({w['bucketed']['pad']})"))
    return lines


@check_command("batching", summary=_summary,
               help="Which batches of a dataset a collate function cannot stack, and what padding or length "
                    "bucketing would cost. TARGET is FILE.py:NAME, NAME a Dataset class or zero-argument factory.")
@click.argument("target", metavar="FILE.py:NAME")
@click.option("--batch-size", type=click.IntRange(min=1), required=True, help="Samples per batch, as in the DataLoader.")
@click.option("--collate", "collate", metavar="FILE.py:FN", help="The collate function (default: default_collate).")
@click.option("--shuffle-seed", type=click.IntRange(min=0), default=None,
              help="Walk the first epoch of shuffle=True with torch.Generator().manual_seed(N) (default: index order).")
@click.option("--drop-last", is_flag=True, help="As the DataLoader's drop_last.")
@click.option("--max-batches", type=click.IntRange(min=1), default=None, help="Stop after this many batches.")
def command(target: str, batch_size: int, collate: str | None, shuffle_seed: int | None, drop_last: bool,
             max_batches: int | None) -> CheckResult:
    """Walk TARGET's dataset in loader order through the collate function (see the module docstring).

    Raises:
        InputError: a file that is not a readable Python file, a missing NAME/FN, or a failing import or
            ``NAME()`` (exit 2), or a dataset that cannot be walked.
    """
    from faultlib.detect.data.batching import check_batching

    dataset, location = build_dataset(target)
    collate_fn = load_collate(collate) if collate else None
    path = Path(location["file"])
    try:
        with user_code(path.resolve()):
            report = check_batching(dataset, batch_size, collate_fn=collate_fn, shuffle_seed=shuffle_seed,
                                    drop_last=drop_last, max_batches=max_batches, location=location)
    except DetectorError as exc:
        raise InputError(str(exc), path=str(path), field=location["function"]) from None
    fields = report.fields()
    fields["collate"] = collate or "default_collate"
    return CheckResult("batching", report.findings,
                       {"dataset": {"file": str(path), "name": location["function"], "type": type(dataset).__name__,
                                    "size": report.dataset_size},
                        "batch_size": batch_size, **fields})
