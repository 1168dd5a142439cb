"""How the static analysis reads scikit-learn calls: estimators, splits, cross-validation, and leak checks.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: the interpreter walks statements and
expressions; the methods here give library calls (``train_test_split``, ``cross_val_score``,
``make_pipeline``, ``np.vstack``) and estimator methods (``fit``, ``fit_transform``, ``transform``,
``predict``, ``score``, ``split``) their meaning on abstract values, and decide when a fit leaks
(see the kinds in :data:`faultlib.detect.data.leakage.KINDS`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.modellists import model_list
from faultlib.detect.data.leakage.aligned import same_split_rows
from faultlib.detect.data.leakage.constancy import zero_variance_selector
from faultlib.detect.data.leakage.fills import constant_fill
from faultlib.detect.data.leakage.binarizers import BINARIZERS, binarizes_feature
from faultlib.detect.data.leakage.imputeaxis import imputes_along_rows
from faultlib.detect.data.leakage.imputecv import imputes_one_column
from faultlib.detect.data.leakage.rangeends import period_dropped, range_ends_dropped
from faultlib.detect.data.leakage.choices import COMPOSITES, composite_learns, masked_before_split
from faultlib.detect.data.leakage.targets import feature_encoding
from faultlib.detect.data.leakage.codetables import shared_code_table
from faultlib.detect.data.leakage.targetcodes import TARGET_CODERS, codes_target
from faultlib.detect.data.leakage.stacks import columns_axis as _columns_axis, drops_columns as _drops_columns, \
    repeated_rows, stacked_items
from faultlib.detect.data.leakage.copysplits import CopySplits
from faultlib.detect.data.leakage.rowdraws import WHOLE, stacked_draws
from faultlib.detect.data.leakage.rowunions import row_union
from faultlib.detect.data.leakage.words import PlainRows
from faultlib.detect.data.leakage.foldreuse import FoldReuse
from faultlib.detect.data.leakage.foldranges import counted_fold_loop
from faultlib.detect.data.leakage.loopitems import row_text
from faultlib.detect.data.leakage.lambdareads import builtin_mapped
from faultlib.detect.data.leakage.oldsplitters import listed_splitter
from faultlib.detect.data.leakage.keptparts import drawn_from
from faultlib.detect.data.leakage.values import (
    Data, Enum, Est, FitRef, FoldIter, Indexer, RowUnion, Step, as_data, covers, data_rows_child, disjoint,
    is_training_part, maybe_data, new_id, parts, test_step, training_part_of)
from faultlib.detect.data.leakage.scoring import ScoringChecks, holds_model, predicts, selection
from faultlib.detect.data.leakage.insample import in_sample
from faultlib.detect.data.leakage.encoderreports import encoder_report
from faultlib.detect.data.leakage.scorelists import returns_score
from faultlib.detect.data.leakage.columnstacks import stacks_columns
from faultlib.detect.data.leakage.refits import merged_validation, resampled_for_refit
from faultlib.detect.data.leakage.sole_file import file_table, reads_new_rows as _reads_new_rows
from faultlib.detect.data.leakage.summedrankings import summed_ranking
from faultlib.detect.data.leakage.testparts import input_named_test
from faultlib.detect.data.leakage.unmapped import maps_rows_back
from faultlib.detect.data.leakage.testfills import apart_from, transformed_only
from faultlib.detect.data.leakage.trainrows import TrainRowCuts
from faultlib.detect.data.leakage.clusterreach import ClusterInputs
from faultlib.detect.data.leakage.exclusions import LeftOutColumns
from faultlib.detect.data.leakage.opencvml import opencv_call, opencv_model, opencv_result
from faultlib.detect.data.leakage.params import reaches_columns
from faultlib.detect.data.leakage.polarsrows import side_by_side
from faultlib.findings import Finding, Severity
from faultlib.pyflow.values import UNKNOWN, Const, Container, Func, Ref, Tup

DETECTOR = "leakage"


@dataclass
class FitSite:
    """A fit the analysis saw (reported as ``fits`` by ``faultlib check leakage``)."""

    estimator: str
    variable: str | None
    location: dict[str, Any]
    rows: str | None
    supervised: bool

    def to_json(self) -> dict[str, Any]:
        return {"estimator": self.estimator, "variable": self.variable, **self.location, "rows": self.rows,
                "supervised": self.supervised}


def _call_arg(node: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """The expression a call passes at ``position`` or as ``keyword=``."""
    if len(node.args) > position:
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg == keyword), None)


class EstimatorSemantics(PlainRows, FoldReuse, ScoringChecks, TrainRowCuts, ClusterInputs, LeftOutColumns, CopySplits):
    """Library calls and estimator methods on abstract values (needs ``smap``, ``report``, ``_seen``,
    ``_reused``, ``_fit_sites``, ``_invoke``, ``_derive`` and ``_combine`` from the interpreter)."""

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        name, line = ref.last, node.lineno
        if vocab.progress_bar(ref.name) and args and isinstance(args[0], Tup):
            return args[0]  # tqdm([a, b]): a progress bar yields the items it is given (vocab.PROGRESS_BARS)
        if name in vocab.SPLIT_FUNCTIONS:
            self._check_split_design(args, kwargs, line, frame)
            return self._split(args, line)
        if name in vocab.CV_FUNCTIONS:
            x = args[1] if len(args) > 1 else kwargs.get("X")
            self._reach(x)
            if not imputes_one_column(_call_arg(node, 1, "X"), _call_arg(node, 2, "y"), self._bindings, self.tree,
                                      line):  # a grid over an imputer of one column (imputecv.py)
                self._check_cv(as_data(x), line, f"{name}()")
                self._check_pseudo_cv(as_data(args[2] if len(args) > 2 else kwargs.get("y")), line, f"{name}()")
            self._check_cv_design(kwargs.get("cv"), "groups" in kwargs, x, line, frame, node)
            if name == "validation_curve" or any(a <= line <= b for a, b in self._loop_spans) and \
                    self._loop_keeps_a_choice(line):  # scores printed in a loop choose nothing (handpicked.py)
                # cross-validating candidates in a loop (or a validation curve) chooses one; a single score does not
                self._note_selection(args[0] if args else kwargs.get("estimator"), as_data(x), name, node, frame)
            return UNKNOWN
        special = self._library_design(ref, args, kwargs, node, frame)
        if special is None:
            special = self._library_fit(ref, args, kwargs, node, frame)  # scores, tsfresh selection / impute
        if special is not None:
            return special
        if name in vocab.PIPELINES:
            steps = args[0].items if name == "Pipeline" and args and isinstance(args[0], Tup) else args
            if name == "Pipeline" and "steps" in kwargs and isinstance(kwargs["steps"], Tup):
                steps = kwargs["steps"].items
            ests = [s.items[1] if isinstance(s, Tup) and len(s.items) >= 2 else s for s in steps]
            ests = [e for e in ests if isinstance(e, Est)]
            label = f"Pipeline({', '.join(e.cls for e in ests)})"
            return Est(label, "pipeline", preprocessing=any(e.preprocessing for e in ests),
                       supervised=any(e.supervised for e in ests), steps=ests,
                       options={"opaque_steps": True} if len(ests) < len(steps) else {})  # (scoring.holds_model)
        if name in vocab.SPLITTERS:
            return self._splitter(name, kwargs, node, frame)  # predefined.py
        if name in ("FrozenEstimator", "deepcopy") and args and isinstance(args[0], Est):
            return args[0]
        if name == "clone" and args and isinstance(args[0], Est):
            e = args[0]
            return Est(e.cls, e.category, e.preprocessing, e.supervised, list(e.steps), options=dict(e.options))
        if name in vocab.PROGRESS_BARS and args and isinstance(args[0], FoldIter):
            return args[0]  # tqdm(cv.split(X), total=k): the same folds, one pass each
        if name == "enumerate" and args:
            return Enum(args[0])
        if name == "zip" and args and all(isinstance(a, Tup) for a in args):  # zip(*pairs): known tuples transposed
            return Tup(tuple(Tup(items) for items in zip(*(a.items for a in args))))
        drawn = self._drawn(ref, args)  # np.random.choice(index, n): a random subset's positions
        if drawn is not None:
            return drawn
        if name in vocab.ROW_STACKS and not _columns_axis(kwargs) and not side_by_side(kwargs):  # (polarsrows.py)
            items = [as_data(i) for i in stacked_items(args, kwargs)]  # pd.concat([a, b]), pd.concat(objs=[a, b])
            datas = [d for d in items if d is not None]
            if len(datas) > 1:
                out = row_union(datas, self._test_parts)  # np.vstack((X, X_test)): the test part stays held out
                draws = stacked_draws(node, self._bindings, self._label_columns, self._function_spans)  # rowdraws.py
                repeated = repeated_rows(name, args, kwargs, draws, items)  # oversampling by hand
                if repeated is not None and not stacks_columns(node, self.tree) and not any(  # a resample in the stack already said it
                        f.line == node.lineno and f.method == "resample" for f in out.taints):
                    if WHOLE in draws:  # pd.concat([X] * k): only where a split parts the copies (copysplits.py)
                        self._note_whole_repeat(node, name)
                    fit = self._fit(Est("concat", "transformer", preprocessing=True), repeated, False, name, node, frame)
                    out = out.with_(taints=out.taints | ({fit} if fit else set()))
                return out
        module = ref.module
        if vocab.is_search(name, module):
            return Est(name, "search", options={"cv": kwargs.get("cv")})
        if vocab.is_preprocessing(name, module) or vocab.is_stateless(name, module):
            pre = vocab.is_preprocessing(name, module) and (name not in COMPOSITES or composite_learns(
                args, kwargs)) and not (name in ("OrdinalEncoder", "OneHotEncoder") and isinstance(
                kwargs.get("categories"), Tup)) and not imputes_along_rows(name, args, kwargs) and not constant_fill(
                name, kwargs) and not zero_variance_selector(name, args, kwargs)  # learns nothing from the rows: an
            # old Imputer along rows (imputeaxis.py), a constant fill (fills.py), VarianceThreshold(0) (constancy.py)
            est = Est(name, "transformer", preprocessing=pre, supervised=pre and vocab.is_supervised(name, module),
                      options={"classes": kwargs.get("classes")} if name in BINARIZERS else {})
            prefit = kwargs.get("prefit")
            if isinstance(prefit, Const) and prefit.value is True and args and isinstance(args[0], Est):
                est.fit = args[0].fit  # SelectFromModel(forest, prefit=True): selects by the forest's fit
            return est
        if opencv_model(module, name):  # cv2.ml.SVM_create(): an OpenCV model (opencvml.py)
            return Est(name, "model", options={"opencv": True})
        if vocab.is_model(name, module):  # (a library class the table does not know: a model until used: byuse.py)
            return Est(name, "model", options={"by_use": True} if vocab.is_library_estimator(name, module) else {})
        if name in vocab.FILE_READERS:
            table = file_table(args, node, separate_test=self._separate_test_file, sole=self._sole_data_file)
            if table is not None:
                return table
            if _reads_new_rows(ref, node):  # pd.read_pickle(folder + cfg.data.train): new rows, not the path's (sole_file.py)
                return UNKNOWN
        if (ranking := summed_ranking(name, args)) is not None:
            return ranking  # sum(importance_runs): the runs' vectors added, still their fits' ranking
        if (splitter := listed_splitter(name, args, kwargs)) is not None:
            return splitter  # list(StratifiedKFold(y, k)): old scikit-learn's folds listed (oldsplitters.py)
        if row_text(node, self._every_row) and maybe_data(args[0]) is not None:
            return args[0]  # str(X[i]) for i in range(len(X)): every row, as text (loopitems.py)
        if (mapped := builtin_mapped(name, module, node, args, lambda n: self._lookup(n, frame))) is not None:
            return mapped  # map(lambda k: counts[k], rows): each row looks the table up (lambdareads.py)
        if name in ("len", "int", "float", "str", "range", "print", "isinstance", "round", "min", "max", "sum") or \
                returns_score(module, name):  # confusion_matrix(y_te, p): a table over classes (scorelists.py)
            return UNKNOWN
        flat = []
        for a in [*args, *kwargs.values()]:
            # pd.DataFrame({"feature": cols, "score": scores}): the table holds what its columns hold
            flat.extend(a.items if isinstance(a, Tup) else list(a.items.values()) if isinstance(a, Container) else [a])
        out = self._combine(flat)
        if name in vocab.GRIDS and isinstance(out, Data):
            # np.arange(lo - k * step, hi, step) with step = np.median(np.diff(levels)): a grid of values, built
            # from numbers, not rows: no row of it (and no feature) is a statistic's output
            return Data(None, frozenset(f for f in out.taints if not f.handwritten), False)
        return range_ends_dropped(period_dropped(name, module, out), flat, maybe_data)  # ends; a sine's period

    def _split(self, args: list[Any], line: int) -> Any:
        args = self._aligned(args)  # vectors built in a loop, split beside the table's labels: its rows
        self._reach_by_split(*args[:1], line=line)  # a split says the rows (X) are meant for training and scoring (unscored.py)
        ident = new_id()
        out: list[Any] = []
        datas = [as_data(a) for a in args]
        # splitting rows that are already a training part carves out validation rows, not the test set; so does
        # splitting rows provably apart from a part already held out (X_train = X[:n] beside X_test = X[n:])
        second = "val" if any(d is not None and (is_training_part(d.rows) and not self._subsample(d.rows)
                                                 or self._apart_from_held_out(d.rows)) for d in datas) else "test"
        for data in datas:
            if data is None:
                out.extend([UNKNOWN, UNKNOWN])
                continue
            if line in self._kept_second_parts:  # _, X_part, _, y_part = split(...): a subsample (keptparts.py)
                sample = Data(data_rows_child(data, Step("filter", ident, "sample", line=line)), data.taints, False)
                out.extend([UNKNOWN, sample])
                continue
            if line in self._dropped_second_parts:  # X_part, _, y_part, _ = split(...): a subsample too
                sample = Data(data_rows_child(data, Step("filter", ident, "sample", line=line)), data.taints, False)
                out.extend([sample, UNKNOWN])
                continue
            train = Data(data_rows_child(data, Step("split", ident, "train", line=line)), data.taints, False)
            test = Data(data_rows_child(data, Step("split", ident, second, line=line)), data.taints, second == "test")
            self._split_roots.update(p.root for p in parts(data.rows))  # (static.py: a split says what is held out)
            if second == "test":
                self._test_parts.extend(parts(test.rows))
            self._check_test(test, line, "train_test_split")
            out.extend([train, test])
        return Tup(tuple(out))

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                frame: Any) -> Any:
        line = node.lineno
        through = self._through_functions(name, args, kwargs, line)  # train(input_fn=f), pool.map(f, rows)
        if through is not None:
            return through
        if isinstance(receiver, Est) and receiver.options.get("opencv"):
            played = opencv_call(name, args, kwargs)  # model.train(X, cv2.ml.ROW_SAMPLE, y): fit(X, y)
            return UNKNOWN if played is None else opencv_result(name, self._estimator(receiver, *played, node, frame))
        if isinstance(receiver, Est):
            return self._estimator(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, Container) and name in ("items", "values") and (0 < len(receiver.items) <= 8 or
                                                                                model_list(list(receiver.items.values()))):
            # for name, est in {'PCA': PCA(), ...}.items(): the loop runs once per entry, as for a short list
            return Tup(tuple(Tup((Const(k), v)) if name == "items" else v for k, v in receiver.items.items()))
        special = self._method_design(receiver, name, args, kwargs, node, frame)
        if special is not None:
            return special
        framed = self._frame_method(receiver, name, args, kwargs, node, frame)  # lists, column drops, stacks
        if framed is not None:
            return framed
        if name == "split" and args and as_data(args[0]) is not None and not isinstance(receiver, (Data, Indexer)):
            data = as_data(args[0])
            if self._scores_folds(node) and not self._taken_once(node):  # (a loop of out-of-fold encodings scores
                self._check_cv(data, line, "the cross-validation loop")  # nothing: encodingfolds.py)
            return FoldIter(new_id(), line, data)
        frame_transform = name in vocab.TRANSFORM and any(isinstance(a, Func) for a in args)  # groupby(..).transform(f)
        if (name in (vocab.FIT, *vocab.FIT_TRANSFORM, *vocab.FIT_RESAMPLE, *vocab.TRANSFORM, *vocab.EVALUATE) or
                name in vocab.MODEL_METHODS) and not frame_transform:
            if name not in vocab.TRANSFORM:  # a model the analysis does not know (Keras, xgboost...): its X
                self._reach(*(args[:1] or [vocab.model_input(kwargs)]))
            return UNKNOWN
        if name == "inverse_transform":
            return maps_rows_back(maybe_data(args[0]) if args else None)  # the part's rows, not the receiver's
        # a method of a known data-frame/array operation makes its receiver data; any other method
        # (rng.randn, xp.asarray, pd.DataFrame on an opaque module) gives a new, unrelated value
        known = name in vocab.ROW_METHODS or name in ("head", "tail", "sample", "query", "drop", "append")
        if isinstance(receiver, Indexer):
            data = receiver.data
        else:
            data = as_data(receiver) if known else maybe_data(receiver)
        if data is None:
            return UNKNOWN
        if name in vocab.REDUCTIONS and not _columns_axis(kwargs):
            return Data(None, data.taints, False)  # val = df[mask]['price'].count(): a number, not held-out rows
        if name == "head":
            n = args[0] if args else kwargs.get("n", Const(5))
            hi = n.value if isinstance(n, Const) else ast.unparse(node.args[0]) if node.args else None
            return self._derive(data, data_rows_child(data, Step("slice", hi=hi, line=line)), line)
        if name == "tail":
            n = args[0] if args else kwargs.get("n", Const(5))
            lo = -n.value if isinstance(n, Const) and isinstance(n.value, int) else None
            return self._derive(data, data_rows_child(data, Step("slice", lo=lo, line=line)), line)
        if name in ("sample", "query") or (name == "drop" and not _drops_columns(kwargs) and not (
                args and isinstance(args[0], (Tup, Const))) and not (node.args and reaches_columns(
                    node.args[0], self._column_names))):  # df.drop(col) with col from df.columns: a column (polars)
            frac = kwargs.get("frac")
            if name == "sample" and isinstance(frac, Const) and frac.value == 1:  # a shuffle: every row, new order
                return Data(data_rows_child(data, Step("filter", new_id(), "shuffle", line=line)), data.taints,
                            data.test)
            return self._derive(data, data_rows_child(data, Step("filter", new_id(), "sample" if name == "sample"
                                                                 else None, line=line)), line)
        for func in [a for a in args if isinstance(a, Func)] if name in ("apply", "transform", "agg", "aggregate",
                                                                       "pipe", "map", "applymap") else []:
            result = self._invoke(func, [data], {}, line)  # r.apply(scale_column): the function runs on the rows
            if maybe_data(result) is not None:
                data = data.with_(taints=data.taints | maybe_data(result).taints)
        use = as_data if name == "append" else maybe_data  # df.append(test_df): a table read but not used yet
        others = [d for d in (use(a) for a in _flatten([*args, *kwargs.values()])) if d is not None]
        if name == "append" and others:
            rows = RowUnion(tuple(p for d in [data, *others] for p in parts(d.rows)))
            return Data(rows, frozenset().union(data.taints, *(d.taints for d in others)), False)
        out = Data(data.rows, data.taints.union(*(d.taints for d in others)), data.test)
        if name in ("update", "insert") or isinstance(kwargs.get("inplace"), Const) and kwargs["inplace"].value is True:
            # df['a'].fillna(df['a'].mean(), inplace=True); df.update(filler); df.insert(0, 'amt', scaled): both
            # always write in place (pandas API reference: "DataFrame.update": "Modify in place using non-NA values
            # from another"; "DataFrame.insert": "Insert column into DataFrame at specified location")
            self._rebind_base(node.func.value, out, frame)
        return out

    # ------------------------------------------------------------------ estimators

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        line = node.lineno
        if not args and name == vocab.FIT and "series" in est.options:  # ARIMA(train).fit() (tsmodels.py)
            args = [est.options["series"]]
        x = as_data(args[0] if args else vocab.model_input(kwargs))
        has_y = len(args) > 1 or "y" in kwargs
        if est.category == "splitter":
            if name == "split" and x is not None and self._scores_folds(node):  # (encodingfolds.py)
                x = self._without_left_out(x)  # folds of a frame whose models read a feature list (exclusions.py)
                self._reach(x)
                if not self._taken_once(node):  # next(kf.split(X)): one hold-out (positions.py)
                    self._check_cv(x, line, "the cross-validation loop")
                    self._check_pseudo_cv(as_data(args[1] if len(args) > 1 else kwargs.get("y")), line,
                                          "the cross-validation loop")
                self._check_cv_design(est, len(args) > 2 or "groups" in kwargs, x, line, frame, node)
                return FoldIter(new_id(), line, x)
            return UNKNOWN
        if name in ("set_params", "set_output"):
            return est
        if est.cls == "Tokenizer" and name in vocab.KERAS_METHODS:
            name = vocab.KERAS_METHODS[name]  # tok.fit_on_texts(texts): a vocabulary fitted on those rows
        name, flags = self._by_use(est, name, has_y, x, node, frame)  # keras adapt, outlier flags, new classes
        if flags is not None:
            return flags
        if est.cls in vocab.CLUSTERERS and name in ("fit_predict", "predict"):
            self._feeds_clustering(x, node)  # its input matters where its ids do (clusterreach.py)
            name = "fit_transform" if name == "fit_predict" else "transform"
        if name in vocab.SELECTION_ATTRIBUTES:
            return selection(est)
        if est.category in ("model", "search") or holds_model(est) or \
                est.cls in vocab.PREDICTING_TRANSFORMERS and name in vocab.EVALUATE:  # lda.predict(X): a model
            self._reach(*(args[:1] or [vocab.model_input(kwargs)]))  # X: a statistic of y defines labels
        if est.cls == "LabelEncoder" and (name == vocab.FIT or name in vocab.FIT_TRANSFORM):
            est.preprocessing = feature_encoding(node, self._assigned, self._targets)  # a feature's categories
        if est.cls in BINARIZERS and (name == vocab.FIT or name in vocab.FIT_TRANSFORM):
            est.preprocessing = binarizes_feature(est, node, self._assigned, self._targets, self._bindings)  # one-hot
        if (name == vocab.FIT or name in vocab.FIT_TRANSFORM) and shared_code_table(
                est.cls, est.supervised, node, x, self._bindings):
            self._code_tables.add(node.lineno)  # fit(pd.concat([X, X_test])): one code table, a note (codetables.py)
        if est.cls in TARGET_CODERS and (name == vocab.FIT or name in vocab.FIT_TRANSFORM):
            learns = est.options.setdefault("learns", est.preprocessing)  # as built (categories written out: no)
            est.preprocessing = learns and not codes_target(node, self._assigned, self._targets)  # the class names
        if name == vocab.FIT or name in vocab.FIT_TRANSFORM or name in vocab.FIT_RESAMPLE:
            # y makes a fit supervised unless the class is known to ignore it (a scaler, an imputer)
            reads_y = est.supervised or (has_y and est.category == "transformer" and
                                         est.cls not in vocab.LEARNING_TRANSFORMERS)
            if est.category in ("model", "search", "pipeline") and x is not None:
                self._check_train(x, line)
            fit = self._fit(est, x, reads_y, name, node, frame)
            if name == vocab.FIT:
                if est.category == "search" and x is not None and not imputes_one_column(
                        _call_arg(node, 0, "X"), _call_arg(node, 1, "y"), self._bindings, self.tree, line):
                    self._check_cv(x, line, f"{est.cls}.fit()")
                    self._search_fitted(est, x, node, frame)  # a selection; its PredefinedSplit (predefined.py)
                return est
            out = self._apply(est, fit, x, line, frame)
            if name in vocab.FIT_RESAMPLE:
                y = as_data(args[1] if len(args) > 1 else kwargs.get("y"))
                return Tup((out, Data(y.rows, y.taints | ({fit} if fit else set()), y.test) if y else UNKNOWN))
            return out
        if name in vocab.TRANSFORM or name == "inverse_transform":
            return self._apply(est, est.fit, x, line, frame)
        if name in vocab.EVALUATE:
            if x is None:
                return UNKNOWN
            if est.fit is not None and not x.is_test and self._apart(x, est.fit) and not any(
                    s.part == "val" for p in parts(x.rows) for s in p.steps) and not is_training_part(x.rows):
                x = x.with_(test=True)  # evaluated on rows provably apart from those it was fitted on: held out
            if est.preprocessing and est.fit is not None:
                self._reuse(est.fit, x, line, frame)
                x = x.with_(taints=x.taints | {est.fit})
            if est.fit is not None and predicts(est):
                self._check_trained_on(est.fit, x, line, f"{est.cls}.{name}()")
                self._check_validation(x, line, f"{est.cls}.{name}()")  # validation.py
            if predicts(est):
                self._check_selected_on(x, line, f"{est.cls}.{name}()")
                self._check_tuned(est, x, node, frame)
            self._check_test(x, line, f"{est.cls}.{name}()")
            pseudo = self._pseudo_labels(est, name, x)  # test rows labelled by the model (pseudolabels.py)
            if pseudo is not None:
                return pseudo
            return in_sample(est, name, x, self._overlaps)  # in-sample predictions kept as a feature (insample.py)
        report = encoder_report(est, name)  # a project encoder's IV table: what the labels said (encoderreports.py)
        return report if report is not None else UNKNOWN

    def _apart(self, x: Data, fit: FitRef) -> bool:
        fit_parts = parts(fit.rows)
        return bool(parts(x.rows)) and bool(fit_parts) and all(disjoint(f, p) for f in fit_parts for p in parts(x.rows))

    def _fit(self, est: Est, x: Data | None, supervised: bool, method: str, node: ast.Call,
             frame: Any, *, handwritten: bool = False) -> FitRef | None:
        fit = FitRef(est.cls, est.variable, x.rows if x is not None else None, bool(supervised), node.lineno,
                     node.col_offset + 1, frame.qualname, method, tuple(loop for loop, _ in frame.loops),
                     handwritten, method in vocab.FIT_RESAMPLE or est.cls in vocab.SUPERVISED_TRANSFORMERS
                     and est.cls.endswith(("Sampler", "SMOTE", "ADASYN", "SMOTENC", "SMOTEN")))
        est.fit = fit
        for step in est.steps:  # a Pipeline fits its steps in place
            step.fit = FitRef(step.cls, step.variable, fit.rows, fit.supervised or step.supervised, fit.line,
                              fit.column, fit.function, method, fit.loops)
        if est.preprocessing and not handwritten and (node.lineno, node.col_offset) not in self._fit_sites:
            self._fit_sites.add((node.lineno, node.col_offset))
            self.report.fits.append(FitSite(est.cls, est.variable, {**self.smap.where(node.lineno),
                                                                    "function": frame.qualname},
                                            x.rows.describe() if x is not None and x.rows is not None else None,
                                            fit.supervised))
        if est.preprocessing and x is not None and not self._final_refit(x.rows) and not resampled_for_refit(
                fit, x.rows) and not self._transforms_test_only(x, node, frame) and not self._whole_repeat(fit):
            # (the final refit: refits.py; test rows repeated whole, copies all held out: copysplits.py)
            for p in parts(x.rows):
                named = next((t for t in self._test_parts if covers(t, p) and not test_step(t)), None)
                if p.root.test or test_step(p) is not None or named is not None or input_named_test(x, node):
                    step = test_step(p)
                    self._emit("fit_on_test", fit, line=node.lineno, data=x,
                               why=f"those rows are held out ({self._words(p)}"
                                   f"{', ' + self.smap.describe(step.line) if step else ''})")
                    break
            else:
                if x.test:
                    self._emit("fit_on_test", fit, line=node.lineno, data=x, why="the variable is named for held-out rows")
        return fit

    def _transforms_test_only(self, x: Data, node: ast.Call, frame: Any) -> bool:
        """The fitted estimator only transforms test tables none of whose rows it saw (testfills.py)."""
        if not hasattr(self, "_transformed_only"):
            self._transformed_only = transformed_only(self.tree)
        tables = self._transformed_only.get(id(node))
        return bool(tables) and all(apart_from(x.rows, self._lookup(t, frame)) for t in tables)

    def _apply(self, est: Est, fit: FitRef | None, x: Data | None, line: int, frame: Any) -> Any:
        if x is None:
            return UNKNOWN
        if fit is None or not est.preprocessing:
            return x
        self._reuse(fit, x, line, frame)
        out = Data(x.rows, x.taints | {fit}, x.test)
        self._check_test(out, line, f"{est.cls}.transform()")
        return out

    # ------------------------------------------------------------------ leak checks

    def _final_refit(self, rows: Any) -> bool:
        """Training rows stacked with validation rows, in code that keeps a test set apart (refits.py)."""
        return self._test_set_named and merged_validation(rows, getattr(self, "_caller_names", None))

    def _overlaps(self, fit: FitRef, x: Data) -> bool:
        return any(covers(f, p) for f in parts(fit.rows) for p in parts(x.rows))

    def _check_test(self, data: Data, line: int, how: str) -> None:
        """``data`` is held out: report every fit that shaped it and saw (a superset of) its rows."""
        if not data.is_test and not any(f.resampler for f in data.taints) or self._final_refit(data.rows):
            return  # (training rows stacked with validation rows are the final refit's training set: refits.py)
        for fit in in_order(data.taints):
            if not data.is_test and not fit.resampler or resampled_for_refit(fit, data.rows):
                continue  # (or the final refit's training rows, oversampled: refits.py)
            for f in parts(fit.rows):
                for p in parts(data.rows):
                    f = masked_before_split(f, p)
                    if not covers(f, p) or not data.is_test and test_step(p, len(f.steps), val=True) is None:
                        continue
                    if not data.test and not p.root.test and test_step(p, val=fit.resampler) is None:
                        continue  # this part of a stack is not the held-out one
                    if self._copies_kept(fit, p, len(f.steps), line):
                        continue  # a whole table repeated, its copies never parted (copysplits.py)
                    whole = f == p and not f.steps and data.test
                    if whole and not f.root.test and (loop := self._counted_fold(fit, data, line)) is not None:
                        # the helper's input cut into folds by hand, one held out per turn (foldranges.py)
                        self._emit("fit_outside_cv", fit, line=line, data=data,
                                   why=f"the fold loop on {self.smap.describe(loop)} holds out part of those rows "
                                       f"({self._words(p)}) and scores folds whose held-out rows it had already seen")
                        break
                    # the very rows a row filter kept, filled with their own statistic and named for testing in that
                    # statement (X_test = rows.apply(lambda c: c.fillna(c.median()))): the fit saw those held-out
                    # rows and no others (wave 100)
                    selected = f == p and bool(f.steps) and data.test and f.steps[-1].kind == "filter" and \
                        fit.line == line and how == "the variable name"
                    if f.root.test or test_step(f) is not None or whole or selected:
                        # ... or on these very rows, a whole table only later named for testing (a helper's input)
                        self._emit("fit_on_test", fit, line=line, data=data,
                                   why=f"it was fitted on held-out rows ({self._words(f)})")
                        break
                    step = test_step(p, len(f.steps), val=fit.resampler)
                    if step is not None and step.kind == "fold":
                        if (fit.uid, step.ident) in self._reused:
                            continue
                        self._emit("fit_outside_cv", fit, line=step.line, data=data,
                                   why=f"the cross-validation loop on {self.smap.describe(step.line)} scores folds "
                                       "whose test rows it had already seen")
                    elif step is not None:
                        what = "train_test_split" if step.kind == "split" else "a row selection"
                        self._emit("fit_before_split", fit, line=step.line, data=data,
                                   why=f"{what} on {self.smap.describe(step.line)} then sends some of those rows to "
                                       f"test ({self._words(p)})")
                    elif (loop := self._counted_fold(fit, data, line)) is not None:  # one fold's rows (foldranges.py)
                        self._emit("fit_outside_cv", fit, line=line, data=data,
                                   why=f"the fold loop on {self.smap.describe(loop)} holds out {self._words(p)} "
                                       f"({how}, {self.smap.describe(line)}) and scores folds whose held-out rows "
                                       "it had already seen")
                    else:
                        self._emit("fit_before_split", fit, line=line, data=data,
                                   why=f"{self._words(p)} among them are then held out ({how}, "
                                       f"{self.smap.describe(line)})")
                    break

    def _counted_fold(self, fit: FitRef, data: Data, line: int) -> int | None:
        """The line of the loop counted over folds that holds out the rows named on ``line`` (foldranges.py), unless
        the fit's table stacks the test file's rows (then the test rows, ``fit_on_test``: trainrows.py)."""
        loop = counted_fold_loop(self.tree, line)
        return loop if loop is not None and self._stacked_kind(
            "fit_before_split", fit, data, "")[0] == "fit_before_split" else None

    def _check_train(self, data: Data, line: int) -> None:
        """``data`` trains a model: report a fit that shaped it after seeing rows a split had already held out
        (``X_train['a'].fillna(df['a'].mean())`` after ``train_test_split(df)``)."""
        for fit in in_order(data.taints):
            for f in parts(fit.rows):
                held = next((p for p in self._test_parts if covers(f, p) and not any(covers(d, p) for d in
                                                                                     parts(data.rows))), None)
                if held is not None and self._copies_kept(fit, held, len(f.steps), line):
                    continue  # a whole table repeated, its copies never parted (copysplits.py)
                if held is not None:
                    step = test_step(held)
                    loop = self._counted_fold(fit, data, held.steps[-1].line) if held.steps else None
                    if loop is not None:  # test_rows = X[mask] in a loop counted over folds: a fold (foldranges.py)
                        self._emit("fit_outside_cv", fit, line=line, data=data,
                                   why=f"its rows include the rows the fold loop on {self.smap.describe(loop)} holds "
                                       f"out ({self._words(held)}), and what it computed trains the model on "
                                       f"{self.smap.describe(line)}: each fold is scored on rows that shaped it")
                        break
                    self._emit("fit_before_split", fit, line=line, data=data,
                               why=f"its rows include the held-out rows ({self._words(held)}; split on "
                                   f"{self.smap.describe(step.line if step else line)}) and what it computed trains "
                                   f"the model on {self.smap.describe(line)}")
                    break

    def _check_cv(self, data: Data | None, line: int, how: str) -> None:
        """``data`` is cross-validated: report every fit that shaped it after seeing its rows."""
        if data is None:
            return
        for fit in in_order(data.taints):  # fitted on these rows, or on the training part of a split of them
            if self._copies_kept(fit, None, 0, line):
                continue  # a whole table repeated, cross-validated by a key its copies share (copysplits.py)
            if self._overlaps(fit, data) or training_part_of(data.rows, fit.rows) or same_split_rows(fit.rows, data.rows) \
                    or drawn_from(data.rows, fit.rows):  # a subsample's fit (keptparts.py)
                self._emit("fit_outside_cv", fit, line=line, data=data,
                           why=f"{how} on {self.smap.describe(line)} then cross-validates those rows: every fold "
                               "is scored on rows that shaped its features")

    def _emit(self, kind: str, fit: FitRef, *, line: int, data: Data, why: str) -> None:
        kind, why = self._stacked_kind(kind, fit, data, why)  # cut at len(train.csv): test.csv's rows (trainrows.py)
        key = (kind, fit.line, fit.column)
        if key in self._seen:
            return
        self._seen.add(key)
        self._pending.append({"kind": kind, "fit": fit, "line": line, "data": data, "why": why})

    def _finding(self, p: dict[str, Any], reached: bool, also: list[str]) -> Finding:
        kind, fit, data, why = p["kind"], p["fit"], p["data"], p["why"]
        rows = fit.rows.describe() if fit.rows is not None else "unknown rows"  # --json: the notation (a contract)
        if fit.handwritten:
            name = f"a statistic written by hand (`{fit.estimator}`)"
        else:
            name = f"{fit.estimator} `{fit.variable}`" if fit.variable else fit.estimator
        labels = " and labels" if fit.supervised else ""
        advice = {
            "fit_before_split": "split first and compute it on the training part only, or put it in a Pipeline",
            "fit_on_test": "fit it on the training rows only and only transform the test rows",
            "fit_outside_cv": "put it inside the Pipeline you cross-validate so each fold refits it",
            "reused_across_folds": "refit it on each fold's training rows, or put it in a Pipeline",
            "trained_on_test": "fit (or search) on the training part only and score the held-out part once",
        }[kind]
        verb = "computed" if fit.handwritten else "fitted"
        message = (f"{name} is {verb} ({fit.method} on {self.smap.describe(fit.line)}) on {self._words(fit.rows)}{labels}; "
                   f"{why}. Fix: {advice}")
        severity = Severity.ERROR if fit.supervised or kind == "trained_on_test" else Severity.WARNING
        if fit.estimator == "LabelEncoder" and reached:  # a feature's category set only (see choices.py)
            severity = Severity.INFO
            message += (" (info: a LabelEncoder learns only the category names of the feature, no statistic and no "
                        "label; fit it on the training rows, or use OrdinalEncoder(handle_unknown=...) in a Pipeline)")
        elif fit.line in self._code_tables and reached:  # one code table for train and test (codetables.py)
            severity = Severity.INFO
            message += (f" (info: an {fit.estimator} fitted on the training and test rows stacked learns only their "
                        "category names, no statistic and no label; fit it on the training rows with "
                        "handle_unknown=... to keep the test rows' levels unseen)")
        if not reached:
            severity = Severity.INFO
            message += (" (info: its output reaches no model this file trains, scores or saves, e.g. an "
                        "exploratory plot)")
        location = {**self.smap.where(fit.line), "column": fit.column, "function": fit.function}
        evidence = {"estimator": fit.estimator, "variable": fit.variable, "method": fit.method,
                    "supervised": fit.supervised, "fit_rows": rows,
                    "held_out_rows": data.rows.describe() if data.rows is not None else None,
                    "at": self.smap.where(p["line"]), "handwritten": fit.handwritten,
                    "reaches_model": reached, "also": also,
                    "test_only": kind == "fit_on_test" and bool(parts(fit.rows)) and all(
                        p_.root.test or test_step(p_) is not None for p_ in parts(fit.rows))}
        return Finding(DETECTOR, severity, message, location, evidence, kind=kind)


def in_order(fits: frozenset[FitRef]) -> list[FitRef]:
    """``fits`` in the order they were made (source position, then creation): a set's order follows hashes that
    change from run to run, and the first fit checked on a line is the one a finding names (``_emit`` keeps one per
    kind, line and column), so the same code must always name the same fit (``df.x.mean()`` or ``df.x.std()``)."""
    return sorted(fits, key=lambda f: (f.line, f.column, f.uid))


def _flatten(values: list[Any]) -> list[Any]:
    """Arguments with the items of tuples and dicts among them (``s.replace({0: s.median()})``)."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, Tup):
            out.extend(v.items)
        elif isinstance(v, Container):
            out.extend(v.items.values())
        else:
            out.append(v)
    return out
