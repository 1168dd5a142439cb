"""A fit on the whole training file, then a split of that file whose validation part scores the models.

``train.csv`` beside a competition ``test.csv`` (no labels: predictions only). The notebook scales all of
``train.csv``, splits it into train/validation and scores its models on the validation part. Those scores are
the notebook's only labelled evaluation, and they choose the model; yet the validation rows shaped the scaler.
ASE'22 (Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks: static detection and better
processes") define preprocessing leakage by the data a trained model is evaluated on, validation rows included:
their analysis pairs a model's training data with any data it then predicts on, and expects the leak in such a
notebook (its ``nb_344873`` input: a scaler on the training file, then ``train_test_split`` into ``X_tr``/``X_val``).
So this is reported as ``fit_before_split`` at the split, the same finding a fit before a train/test split gets,
but ranked below ``fit_outside_cv``: when the same fit also shaped a cross-validation or a search over the training
file, that is the finding (one fit, one finding: ``static.Analyzer._finalize``).

Not reported (the issue's look-alike): a split of a training *part* an earlier split made (``X_train`` of a
``train_test_split`` whose test part is held out), a training part named only by its variable (``X_train`` of a
dataset loader with its own test set), and validation rows that no model trained elsewhere scores.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.choices import masked_before_split
from faultlib.detect.data.leakage.testparts import file_validation
from faultlib.detect.data.leakage.values import Data, covers, parts


class ValidationChecks:
    """Fits that saw a training file's validation rows, found where a model scores those rows."""

    def _check_validation(self, x: Data, line: int, how: str) -> None:
        """``x`` is scored by a model trained on other rows (``how`` on ``line``): report every preprocessing fit
        that shaped ``x`` and saw all of the training file before it was split into train/validation."""
        for p in parts(x.rows):
            i = file_validation(p)
            if i is None:
                continue
            split = p.steps[i]
            for fit in x.taints:
                seen = [masked_before_split(f, p) for f in parts(fit.rows)]
                key = ("validation", fit.line, fit.column)
                if fit.resampler or key in self._seen or not any(covers(f, p) and len(f.steps) <= i for f in seen):
                    continue
                self._seen.add(key)
                self._pending.append({
                    "kind": "fit_before_split", "fit": fit, "line": split.line, "data": x, "validation": True,
                    "why": f"train_test_split on {self.smap.describe(split.line)} then sets some of the training "
                           f"file's rows aside for validation ({self._words(p)}), and {how} on "
                           f"{self.smap.describe(line)} scores a model on them: the validation scores, this "
                           "notebook's only labelled evaluation, come from rows that shaped the fit"})

    _seen: set
    _pending: list
    smap: Any
