"""How a model is scored, for the static leakage analysis: ``trained_on_test`` and the columns a selector chose.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_test_parts``, ``_selections``,
``_reached``, ``_emit`` and ``smap`` from there):

* a model or a search **trained on rows that include the held-out rows it then scores**: ``grid.fit(X, y)`` on
  all rows, then ``grid.score(X_test, y_test)``; a model trained on ``df.sample(frac)`` of rows that hold the
  test part (a learning curve); the ASE'22 paper's *overlap leakage* (Yang et al., "Data leakage in notebooks:
  static detection and better processes", ASE 2022);
* a **choice made with the test rows**: candidates cross-validated in a loop (or a ``validation_curve``, or a
  search) over rows holding a part an earlier split set aside, then a model scored on that part. One
  cross-validated score beside a split (for comparison) chooses nothing and is not reported, nor is one in a loop
  that keeps its best by comparing another value (:mod:`.comparedby`);
* ``rfe.support_``, ``skb.get_support()``: which columns a fitted selector kept carries that fit, so
  ``X[X.columns[rfe.support_]]`` before a split is a fit before the split;
* splitting rows provably apart from a part already held out (``X[:n]`` beside ``X_test = X[n:]``) carves
  validation rows, not the test set.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.comparedby import kept_by_another_value
from faultlib.detect.data.leakage.testparts import file_validation
from faultlib.detect.data.leakage.values import Data, Est, FitRef, before_sample, covers, disjoint, parts, test_step
from faultlib.pyflow.values import UNKNOWN


class ScoringChecks:
    """Models scored on rows they (or the choice of them) already saw (see the module docstring)."""

    def _subsample(self, rows: Any) -> bool:
        """Rows that are a training part only by splits whose held-out part was discarded (``data, _ = split``):
        a subsample of the data, so splitting them makes the test set."""
        trains = [s for p in parts(rows) for s in p.steps if s.kind == "split" and s.part == "train"]
        return bool(trains) and all(s.ident in self._discarded for s in trains) and not any(
            vocab.looks_like_train(p.root.name) for p in parts(rows))

    def _apart_from_held_out(self, rows: Any) -> bool:
        held = [t for t in self._test_parts if getattr(test_step(t), "ident", None) not in self._discarded]
        ps = parts(rows)
        return bool(ps) and all(any(disjoint(p, t) for t in held) for p in ps)

    def _check_trained_on(self, fit: FitRef, x: Data, line: int, how: str) -> None:
        """A model (or a search) scores held-out rows ``x`` that it was trained on: ``grid.fit(X, y)`` on all
        rows, then ``grid.score(X_test, y_test)`` (the ASE'22 paper's *overlap leakage*)."""
        validation = _file_validation_only(x)
        if not x.is_test and not validation:
            return
        for f in parts(fit.rows):
            if f.root.test:
                continue  # a stack with a named test table: Kaggle's unlabelled test rows train nothing
            # df.sample(frac=.5), an undersample: a random subset drawn regardless of the split holds test rows too
            # held out by a split, not by a name alone; rows selected by a filter (test = df[~df.index.isin(
            # train.index)], the complement of the sample) are not shown to meet a sample; the validation part of
            # a whole training file (beside an unlabelled test.csv) is the notebook's labelled evaluation: a model
            # trained on that whole file scores rows it saw (validation.py's reading, for the model itself)
            p = next((p for p in parts(x.rows) if test_step(p) is not None and covers(before_sample(f, p), p) or covers(
                f, p) and (any(covers(t, p) for t in self._test_parts) or validation and _before_validation(f, p))),
                None)
            if p is not None:
                self._reached.add((fit.line, fit.column))
                self._emit("trained_on_test", fit, line=line, data=x,
                           why=f"{how} on {self.smap.describe(line)} then scores the held-out rows {p.describe()} "
                               "among them: the score is measured on rows the model was trained on")
                return

    def _note_selection(self, est: Any, x: Data | None, how: str, node: ast.Call, frame: Any) -> None:
        """A cross-validation or a search over rows that hold a part an earlier split set aside: remembered, and
        reported when a model later scores that part (the test rows helped choose the model)."""
        if x is None:
            return
        facts = next((f for f in self._loop_facts if f.start <= node.lineno <= f.end and f.chooses), None)
        if facts is not None and kept_by_another_value(self.tree, facts.start, facts.end, node.lineno, facts.chooses):
            return  # the loop keeps its best by another value: this one only shows (comparedby.py)
        held = [t for t in self._test_parts if any(covers(p, t) and p != t for p in parts(x.rows))]
        if held:
            fit = FitRef(est.cls if isinstance(est, Est) else how, getattr(est, "variable", None), x.rows, True,
                         node.lineno, node.col_offset + 1, frame.qualname, how,
                         tuple(loop for loop, _ in frame.loops))
            self._selections.append((fit, held))

    def _check_selected_on(self, x: Data, line: int, how: str) -> None:
        for fit, held in self._selections:
            p = next((p for p in parts(x.rows) if any(covers(t, p) for t in held)), None)
            if p is not None:
                self._reached.add((fit.line, fit.column))
                self._emit("trained_on_test", fit, line=line, data=x,
                           why=f"it cross-validates rows that include the held-out rows ({self._words(p)}), which "
                               f"{how} on {self.smap.describe(line)} then scores: the test rows helped choose the "
                               "model")


def _file_validation_only(x: Data) -> bool:
    """Every part of ``x`` is the validation part of a whole training file (``train.csv`` split into train/val
    beside a competition ``test.csv``): the rows whose score is the notebook's only labelled evaluation."""
    ps = parts(x.rows)
    return bool(ps) and all(file_validation(p) is not None for p in ps)


def _before_validation(fit_part: Any, p: Any) -> bool:
    """``fit_part`` holds the training file as it was before the split that made the validation part ``p``."""
    i = file_validation(p)
    return i is not None and len(fit_part.steps) <= i


def selection(est: Est) -> Any:
    """``rfe.support_``, ``skb.get_support()``: which columns a fitted selector kept carries that fit. A stateless
    transformer's ``get_feature_names_out`` (``PolynomialFeatures``: the products of the input columns it was given)
    names what its input already fixed, learnt from no row (scikit-learn glossary, "stateless"), and carries nothing."""
    if est.cls in vocab.STATELESS:
        return UNKNOWN
    return Data(None, frozenset({est.fit}), False) if est.fit is not None else UNKNOWN


def predicts(est: Est) -> bool:
    return est.category in ("model", "search") or est.cls in vocab.PREDICTING_TRANSFORMERS or holds_model(est)


def holds_model(est: Est) -> bool:
    """A pipeline whose steps include a model (or a step the analysis does not know): fitting it trains one.

    A pipeline of transformers only, learning or stateless (``Pipeline([ArbitraryDiscretiser(), MeanEncoder()])``),
    trains no model: its ``fit`` is a transformer's fit (scikit-learn glossary, "transformer" / "predictor").
    """
    if est.category != "pipeline":
        return False
    if est.options.get("opaque_steps") or not est.steps:
        return True
    return any(e.category != "transformer" and (e.category != "pipeline" or holds_model(e)) for e in est.steps)
