"""A "development" part split against an external test part: training rows, not held-out ones.

``dev`` usually names a validation part (``X_dev`` beside ``X_train``: Ng's train/dev/test), and
:func:`.vocab.looks_like_test` reads it so. QSAR and clinical-model code uses the word the other way: the data are
split once into a **development** set (everything the model may learn from, later re-split for tuning) and an
**external** test set::

    dev_idx, ext_idx = split_dataset(smiles, y, seed)
    X_dev, X_ext = X[dev_idx], X[ext_idx]
    scaler.fit(X_dev_train); X_dev_scaled = scaler.transform(X_dev_train)

(OECD, "Guidance document on the validation of (Q)SAR models", 2007, principle 4: internal validation on the
training/development set, external validation on a set kept apart; Tropsha, "Best practices for QSAR model
development, validation, and exploitation", Mol. Inf. 29, 2010: the modelling set versus the external evaluation
set; TRIPOD, Collins et al., BMJ 2015: "development" and "external validation" data). When one statement of the
module unpacks a split into a name with the ``dev``/``development`` word and, beside it, a name for an external or
test part (``ext``, ``external``, ``test``, ``holdout``), and the development part is split again for training
(``X_dev_train``: the model is fitted on a part of it), the ``dev`` word names the training side there:
:func:`dev_is_training` says so and a name whose only held-out word is ``dev`` is then not taken for held-out rows
(wave 80: a descriptor scaler fitted on the development rows and applied to them).

Credit scoring says it the same way against time: a scorecard is built on a **development sample** and validated on
an **out-of-time** (OOT) sample of later applications (Siddiqi, "Credit Risk Scorecards", Wiley 2006: the
development sample, out-of-time validation). A module that names one result for both samples -- ``auc_dev`` beside
``auc_oot``, ``ks_dev``/``ks_oot``, ``score_stats_dev``/``score_stats_oot`` -- uses ``dev`` for the training rows
too (wave 88: the training scores' summary, ``score_stats_dev = df_train['score'].describe()``, was taken for
held-out rows, and a capping quantile of the training rows for a fit before a split).

Neuroimaging and process-monitoring code keeps the final part in a **lockbox**: the data are split once, in time or
at random, into a development part that every tuning loop re-splits and a lockbox opened once at the end (Hosseini,
Powell, Collins et al., "I tried a bunch of things: the dangers of unexpected overfitting in classification of brain
data", Neurosci. Biobehav. Rev. 119, 2020: the lockbox is the held-out set that is not touched until the end). A module
that names a lockbox part (``X_lock``, ``x_lockbox``) beside a ``dev`` part that is itself re-split -- a
cross-validation ``.split(x_dev, y_dev)`` or rows sliced out of it (``X_dev.iloc[tr_s:tr_e]``, ``x_dev[tr]``) -- uses
``dev`` for the training rows (wave 100: SECOM yield models fitted on ``X_dev``, the first 85 % in time, and scored on
``X_lock``, were taken for fits on held-out rows).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

_DEV = frozenset({"dev", "development"})
_EXTERNAL = frozenset({"ext", "external", "test", "testing", "holdout", "heldout"})
#: the out-of-time sample a credit scorecard is validated on, beside its development sample
_OUT_OF_TIME = frozenset({"oot", "outoftime"})
#: the final part a lockbox design keeps closed until the end (Hosseini et al. 2020)
_LOCKBOX = frozenset({"lock", "lockbox", "lockboxes"})


def _tokens(node: ast.expr) -> set[str]:
    return set(vocab.name_tokens(node.id)) if isinstance(node, ast.Name) else set()


def dev_is_training(tree: ast.Module) -> bool:
    """Some tuple assignment unpacks a ``dev`` name beside an external/test name, and the development part is split
    again for training (a name with both words: ``X_dev_train``), or one result is named for the development and
    the out-of-time sample (``auc_dev``, ``auc_oot``) (see the module docstring). Ng's train/dev/test code
    (``X_dev, X_test = train_test_split(X_rest)``) has neither and keeps ``dev`` a validation part."""
    nodes = list(walk_once(tree))
    if _dev_beside_out_of_time(nodes) or _dev_resplit_beside_lockbox(nodes):
        return True
    if not any(isinstance(n, ast.Name) and {"dev", "development"} & set(vocab.name_tokens(n.id))
               and {"train", "training"} & set(vocab.name_tokens(n.id)) for n in nodes):
        return False
    for node in nodes:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, (ast.Call, ast.Subscript))):
            continue
        for target in node.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) >= 2:
                tokens = [_tokens(e) for e in target.elts]
                if any(t & _DEV for t in tokens) and any(t & _EXTERNAL and not t & _DEV for t in tokens):
                    return True
    return False


def _dev_beside_out_of_time(nodes: list[ast.AST]) -> bool:
    """Two names differ only by ``dev`` against ``oot`` (``ks_dev``, ``ks_oot``)."""
    dev, oot = set(), set()
    for n in nodes:
        if isinstance(n, ast.Name):
            tokens = frozenset(vocab.name_tokens(n.id))
            if tokens & _DEV:
                dev.add(tokens - _DEV)
            if tokens & _OUT_OF_TIME:
                oot.add(tokens - _OUT_OF_TIME)
    return bool(dev & oot)


def _dev_name(node: ast.AST) -> bool:
    """``x_dev``, ``X_dev.iloc``, ``dev_df.loc``: a name with the ``dev`` word, or its positional indexer."""
    if isinstance(node, ast.Attribute) and node.attr in ("iloc", "loc", "values"):
        node = node.value
    return bool(isinstance(node, ast.Name) and _tokens(node) & _DEV)


def _dev_resplit_beside_lockbox(nodes: list[ast.AST]) -> bool:
    """A lockbox name (``X_lock``) and a ``dev`` part re-split for tuning: ``.split(x_dev, ...)`` or a slice of it
    (``X_dev.iloc[a:b]``, ``x_dev[tr]``) (see the module docstring)."""
    if not any(isinstance(n, ast.Name) and _tokens(n) & _LOCKBOX for n in nodes):
        return False
    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "split" and any(
                _dev_name(a) for a in n.args):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and _dev_name(n.value) and not isinstance(
                n.slice, ast.Constant):
            return True
    return False


def only_dev(name: str) -> bool:
    """``name``'s only word for held-out rows is ``dev``/``development`` (``desc_dev_scaled``, not ``X_dev_test``)."""
    tokens = set(vocab.name_tokens(name))
    return bool(tokens & _DEV) and not vocab.looks_like_test("_".join(sorted(tokens - _DEV)) or "x")


__all__ = ["dev_is_training", "only_dev"]
