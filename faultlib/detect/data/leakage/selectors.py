"""Functions and attributes that learn from the rows they are given, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_fit``, ``_store`` from there).
Each is a fit without an estimator object, so the class-based vocabulary does not see it:

* **univariate scores** (scikit-learn ``sklearn.feature_selection``: ``mutual_info_classif``,
  ``mutual_info_regression``, ``f_classif``, ``f_regression``, ``r_regression``, ``chi2``): a score per column
  computed from ``X`` and ``y``; the columns chosen by it (``X[top]``) carry that fit, as ``rfe.support_`` does;
* a fitted model's ``feature_importances_`` (scikit-learn tree ensembles, xgboost, lightgbm; a supervised selector's
  scores: scikit-rebate's ``ReliefF``, ``MultiSURF``, ``TuRF``, wave 70) or ``coef_`` (linear
  models: ``LassoCV``, an L1 ``LogisticRegression``, ``LinearSVC``): the same, when the importances or the weights'
  sizes choose the columns of the model that is later scored (scikit-learn's ``SelectFromModel`` ranks by either
  attribute, user guide 1.13.4; waves 59 and 62: columns kept by ``abs(lasso.coef_)``, alone or rank-averaged with
  forest importances, before the cross-validation);
* **mrmr** (the ``mrmr`` package's ``mrmr_classif``, ``mrmr_regression``: the ``K`` columns of maximum relevance
  to ``y`` and minimum redundancy among themselves, Peng, Long & Ding, IEEE TPAMI 27(8), 2005; package README,
  github.com/smazzanti/mrmr): a list of chosen column names, a choice made with every row's label;
* **tsfresh** (``tsfresh.select_features``, ``tsfresh.extract_relevant_features``: a relevance test of every
  feature against ``y``; ``tsfresh.utilities.dataframe_functions.impute`` and ``impute_dataframe_range``:
  NaN -> column median, +-inf -> column max/min, in place; ``extract_features(..., impute_function=impute)``):
  tsfresh documentation, "Feature filtering" and "Data formats / impute"; the filter is the FRESH algorithm's
  hypothesis test of each feature against the target with a Benjamini-Yekutieli false-discovery-rate control
  (Christ, Braun, Neuffer, Kempa-Liehr, Neurocomputing 307, 2018), so the columns it keeps were chosen with every
  row's label: selection on all samples before a split or cross-validation biases its score (Ambroise &
  McLachlan, PNAS 2002);
* **miceforest** kernels (``ImputationKernel(df)``, ``kernel.mice(n)``, ``kernel.complete_data()``): multiple
  imputation by chained random forests (MICE; van Buuren & Groothuis-Oudshoorn, J. Stat. Softw. 45(3), 2011),
  fitted on every row of the table given; the kernel stands for that table completed;
* the **Keras** ``Tokenizer``: ``fit_on_texts`` builds the vocabulary (the ``num_words`` most frequent words) from
  the texts it is given, ``texts_to_sequences`` / ``texts_to_matrix`` apply it (Keras API,
  ``keras.preprocessing.text.Tokenizer``).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.classtests import ClassComparisons
from faultlib.detect.data.leakage.relevance import TargetCorrelation
from faultlib.detect.data.leakage.values import Data, Est
from faultlib.pyflow.values import UNKNOWN, Ref, Tup

_SCORE_FUNCTIONS = frozenset({"mutual_info_classif", "mutual_info_regression", "f_classif", "f_regression",
                              "r_regression", "chi2"})
#: score functions that return a pair, the statistic and its p-value per column (scikit-learn API reference:
#: ``f_classif``, ``f_regression``, ``chi2`` return ``(f_statistic or chi2, p_values)``): both rank the columns
_SCORE_PAIRS = frozenset({"f_classif", "f_regression", "chi2"})
_TSFRESH_SELECTORS = frozenset({"select_features", "extract_relevant_features"})
#: the ``mrmr`` package's selectors: the K columns of maximum relevance to ``y``, minimum redundancy
_MRMR_SELECTORS = frozenset({"mrmr_classif", "mrmr_regression"})
_TSFRESH_IMPUTERS = frozenset({"impute", "impute_dataframe_range"})
#: miceforest's kernels: chained random-forest imputation fitted on the table they are built from (miceforest
#: documentation, "ImputationKernel": the data is given at construction, ``mice(iterations)`` fits the models,
#: ``complete_data()`` returns the table filled)
_MICE_KERNELS = frozenset({"ImputationKernel", "MultipleImputedKernel", "KernelDataSet"})
#: attributes of a fitted model that rank its input columns (trees' importances, linear models' weights)
IMPORTANCES = frozenset({"feature_importances_", "coef_"})


class FunctionalFits(TargetCorrelation, ClassComparisons):
    """Fits made by a function call or read from a model's importances (see the module docstring); pandas'
    correlations with the target come from :class:`~faultlib.detect.data.leakage.relevance.TargetCorrelation`."""

    def _library_fit(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        """The value of a call this module knows as a fit, else ``None``."""
        from faultlib.detect.data.leakage.values import as_data

        name, top = ref.last, ref.module.split(".")[0]
        if (correlation := self._correlation_call(ref, args, node, frame)) is not None:
            return correlation  # pearsonr(df[c], df['t']): a column's score against the target (relevance.py)
        if (compared := self._class_test_call(ref, args, node, frame)) is not None:
            return compared  # ttest_ind(sick[g], well[g]): a column's score between the classes (classtests.py)
        if name == "Tokenizer" and top in ("keras", "tensorflow", "tf"):
            return Est(name, "transformer", preprocessing=True)  # fit_on_texts: a vocabulary of the top words
        if name in _MICE_KERNELS and top in ("miceforest", ""):
            return self._mice_kernel(ref, args, kwargs, node, frame)
        if name not in _SCORE_FUNCTIONS | _MRMR_SELECTORS | _TSFRESH_SELECTORS | _TSFRESH_IMPUTERS | {
                "extract_features"}:
            return None
        if name in _SCORE_FUNCTIONS and top not in ("sklearn", ""):
            return None
        if name in _MRMR_SELECTORS:
            if top not in ("mrmr", ""):
                return None
            name = "mrmr"  # the chosen columns: a choice made with y, as a score function's
        elif name not in _SCORE_FUNCTIONS and top not in ("tsfresh", ""):
            return None
        x = as_data(args[0] if args else kwargs.get("X", kwargs.get("timeseries_container")))
        if x is None:
            return None
        if name == "extract_features":
            imputer = kwargs.get("impute_function")
            if not (isinstance(imputer, Ref) and imputer.last in _TSFRESH_IMPUTERS):
                return None  # features of each series alone: nothing learnt across rows
        supervised = name in _SCORE_FUNCTIONS or name in _TSFRESH_SELECTORS or name == "mrmr"
        est = Est(f"{ref.last}()", "transformer", preprocessing=True, supervised=supervised)
        fit = self._fit(est, x, supervised, ref.last, node, frame)
        if name in _SCORE_FUNCTIONS or name == "mrmr":
            ranking = Data(None, frozenset({fit}) if fit else frozenset(), False)  # one score per column: a choice
            return Tup((ranking, ranking)) if name in _SCORE_PAIRS else ranking  # F, pval = f_classif(X, y)
        out = Data(x.rows, x.taints | ({fit} if fit else set()), x.test)
        if name in _TSFRESH_IMPUTERS and node.args and isinstance(node.args[0], ast.Name):
            self._store(node.args[0].id, out, frame)  # impute(df) fills df in place
        return out

    def _mice_kernel(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        """``miceforest.ImputationKernel(df)``: an imputer holding the table it will complete (fitted by
        ``kernel.mice(n)``, applied by ``kernel.complete_data()``)."""
        from faultlib.detect.data.leakage.values import as_data

        x = as_data(args[0] if args else kwargs.get("data"))
        return None if x is None else Est(ref.last, "transformer", preprocessing=True, options={"table": x})

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if isinstance(receiver, Est) and receiver.cls in _MICE_KERNELS and "table" in receiver.options:
            table = receiver.options["table"]
            if name == "mice" or name == "complete_data" and receiver.fit is None:
                self._fit(receiver, table, False, name, node, frame)  # the chained models learn every row's values
            if name == "complete_data":
                return self._apply(receiver, receiver.fit, table, node.lineno, frame)
            if name == "mice":
                return UNKNOWN
        return super()._method_value(receiver, name, args, kwargs, node, frame)

    def _importances(self, est: Est) -> Data | None:
        """``model.feature_importances_``: the ranking carries the model's fit (``None``: not fitted here); a
        supervised selector's scores too (scikit-rebate's Relief family keeps its per-feature scores in
        ``feature_importances_``, skrebate documentation "Using skrebate")."""
        if est.fit is None or not (vocab.is_model(est.cls) or est.category in ("model", "search") or (
                est.supervised and est.preprocessing)):
            return None
        return Data(None, frozenset({est.fit}), False)
