"""Generate ``faultlib/detect/data/leakage/estimators.py``: the role of every estimator class of scikit-learn,
imbalanced-learn, category_encoders and feature-engine, probed by behaviour, plus documented classes of libraries
that are not installed here (keras preprocessing layers, umap-learn, boruta, tsfresh, sklearn-pandas, the
xgboost/lightgbm/catboost scikit-learn wrappers).

Run once in a virtual environment with those libraries (``pip install scikit-learn imbalanced-learn
category_encoders feature-engine``) and commit the table; ``check leakage`` never imports them::

    python tools/estimator_roles.py > faultlib/detect/data/leakage/estimators.py

How a role is decided (the probe, per class, on small random inputs of every kind a class accepts: numbers,
numbers with NaN, counts, categories, texts, dicts, a kernel matrix, as arrays and as DataFrames):

* ``learns``: a transformer fitted on two different row sets (same shape) transforms a third set differently
  (or refuses it after one fit only: unknown categories), or keeps different fitted attributes;
* ``supervised``: it learns, and its fit reads ``y`` (the library's ``target_tags.required``, or fitting the same
  rows with two different ``y`` changes its output);
* ``stateless``: fitting on different rows changes neither the output nor a fitted attribute;
* ``resampler``: imbalanced-learn's samplers (``fit_resample`` reads ``X`` and ``y``);
* ``clusterer``, ``outlier``, ``model``: scikit-learn's own mixins (``ClusterMixin``, ``OutlierMixin``,
  ``ClassifierMixin``/``RegressorMixin``); a predictor that also transforms (``LinearDiscriminantAnalysis``,
  the PLS family) is ``supervised`` with ``predicts``;
* ``labels``: fitted on a label vector (``LabelEncoder``, ``LabelBinarizer``, ``MultiLabelBinarizer``): the
  analysis decides by the column it encodes (``choices.feature_encoding``, ``binarizers``);
* ``meta``: composites and searches, modelled elsewhere (``Pipeline``, ``GridSearchCV``, ``ColumnTransformer``);
* ``other``: fitted objects that neither transform nor predict rows (covariance estimators, ``NearestNeighbors``,
  ``KernelDensity``): no role in the analysis.

A class the probe could not run (a required argument, a time limit of 25 s) takes its role from ``HAND`` with
the reason, as do the classes of libraries not installed (each with the page of its documentation).
"""
import warnings, inspect, importlib, pkgutil, json, sys, numpy as np, pandas as pd
warnings.filterwarnings("ignore")
from sklearn.base import clone, TransformerMixin, ClassifierMixin, RegressorMixin, ClusterMixin, OutlierMixin
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.tree import DecisionTreeClassifier

def public_module(cls, lib):
    parts = cls.__module__.split(".")
    best = cls.__module__
    for i in range(1, len(parts) + 1):
        m = ".".join(parts[:i])
        try:
            if getattr(importlib.import_module(m), cls.__name__, None) is cls and not any(p.startswith("_") for p in parts[:i]):
                best = m if i > 1 or lib != "sklearn" else best
                if i > 1 or lib != "sklearn":
                    return m
        except Exception:
            pass
    keep = []
    for p in parts:
        if p.startswith("_"): break
        keep.append(p)
    return ".".join(keep)

rng = np.random.default_rng(0)
def cols(a): return pd.DataFrame(a, columns=[f"c{i}" for i in range(a.shape[1])])
NUM = (rng.normal(0, 1, (80, 4)), rng.normal(4, 3, (80, 4)) ** 2 - 2, rng.normal(1, 2, (30, 4)))
#: NaN in one column of the first set, in another of the second (imputers, missing indicators learn which)
NANS = tuple(np.where((rng.random(a.shape) < 0.3) & (np.arange(4) == [0, 2, 0][i]), np.nan, a) for i, a in enumerate(NUM))
#: structure that selectors learn: a duplicated, a constant and a correlated column in the first set only
_x = NUM[0][:, 0]
STRUCT = (np.column_stack([_x, _x, np.ones(80), _x * 2 + rng.normal(0, 0.01, 80)]), NUM[1], NUM[2])
POS = tuple(np.abs(a) + 0.1 for a in NUM)
COUNTS = tuple(np.where(rng.random(a.shape) < [0.2, 0.5, 0.8, 0.5], 0, np.floor(np.abs(a) * 3)) for a in NUM[:1]) + \
    tuple(np.where(rng.random(a.shape) < [0.8, 0.1, 0.3, 0.5], 0, np.floor(np.abs(a) * 3)) for a in NUM[1:])
INTS = tuple(np.floor(np.abs(a)).astype(int) % 5 + i for i, a in enumerate(NUM))
CATS = tuple(pd.DataFrame({f"c{j}": [["a", "b", "c", "d", "e", "f"][(int(v) + i) % 6] for v in np.abs(a[:, j]) * 2]
                           for j in range(3)}) for i, a in enumerate(NUM))
CATSNA = tuple(c.mask(pd.DataFrame(rng.random(c.shape) < 0.2, columns=c.columns)) for c in CATS)
#: the first set ordered with the labels, so a target-ordered encoding differs from a frequency one
CATS = (CATS[0].assign(c0=np.where((NUM[0][:, 0] > 0), "a", "b")),) + CATS[1:]
TEXT = (["red apple pie", "green apple tart", "blue sky"] * 20 + ["x y"] * 20,
        ["dark night sky", "red wine", "green tea cup"] * 20 + ["z w"] * 20, ["red sky apple", "green wine"] * 15)
DICTS = tuple([{"a": float(r[0]), "k" + str(int(abs(r[1])) % 3 + 3 * i): 1.0} for r in a] for i, a in enumerate(NUM))
KERNEL = (NUM[0] @ NUM[0].T, NUM[1] @ NUM[1].T, rng.normal(0, 1, (30, 80)))
Y1 = (NUM[0][:, 0] > 0).astype(int)
Y2 = (NUM[0][:, 1] > 0.3).astype(int)
DATASETS = [("NANS", NANS), ("CATS", CATS), ("STRUCT", STRUCT), ("NUM", NUM), ("POS", POS), ("COUNTS", COUNTS),
            ("INTS", INTS), ("CATSNA", CATSNA), ("TEXT", TEXT), ("DICTS", DICTS), ("KERNEL", KERNEL)]
DATASETS += [("df" + n, tuple(cols(a) for a in d)) for n, d in DATASETS if n in ("NANS", "STRUCT", "NUM", "POS", "INTS")]

def make(cls):
    sig = inspect.signature(cls.__init__).parameters
    kw = {}
    for p in ("estimator", "base_estimator"):
        if p in sig and sig[p].default is inspect._empty:
            kw[p] = LogisticRegression() if issubclass(cls, ClassifierMixin) or not issubclass(cls, RegressorMixin) else Ridge()
    if "estimator" in sig and cls.__module__.startswith("feature_engine") and sig["estimator"].default is inspect._empty:
        kw["estimator"] = DecisionTreeClassifier(random_state=0)
    if "random_state" in sig: kw["random_state"] = 0
    n = cls.__name__
    extra = {"SparseCoder": {"dictionary": np.eye(4)}, "TSNE": {"perplexity": 5},
             "SequentialFeatureSelector": {"n_features_to_select": 2}, "SelectKBest": {"k": 2},
             "GaussianRandomProjection": {"n_components": 2}, "SparseRandomProjection": {"n_components": 2},
             "CCA": {"n_components": 1}, "PLSCanonical": {"n_components": 1}, "PLSSVD": {"n_components": 1},
             "ArbitraryDiscretiser": {"binning_dict": {"c0": [-np.inf, 0, np.inf]}},
             "ArbitraryOutlierCapper": {"max_capping_dict": {"c0": 1.0}},
             "DropFeatures": {"features_to_drop": ["c0"]}, "MathFeatures": {"variables": ["c0", "c1"], "func": "sum"},
             "RelativeFeatures": {"variables": ["c0"], "reference": ["c1"], "func": ["sub"]},
             "CyclicalFeatures": {}, "DropHighPSIFeatures": {},
             "SklearnTransformerWrapper": {"transformer": __import__("sklearn.preprocessing").preprocessing.StandardScaler()},
             "SelectByShuffling": {"estimator": DecisionTreeClassifier(random_state=0)},
             }
    kw.update(extra.get(n, {}))
    try:
        return cls(**kw)
    except Exception:
        return None

SKIP = ("n_features_in_", "feature_names_in_", "n_samples_seen_")
def fitted_attrs(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_") and k not in SKIP}

def same(a, b):
    try:
        if isinstance(a, (pd.DataFrame, pd.Series)): a = a.to_numpy()
        if isinstance(b, (pd.DataFrame, pd.Series)): b = b.to_numpy()
        if isinstance(a, np.ndarray) or hasattr(a, "toarray"):
            a = a.toarray() if hasattr(a, "toarray") else np.asarray(a)
            b = b.toarray() if hasattr(b, "toarray") else np.asarray(b)
            if a.shape != b.shape: return False
            try: return np.allclose(a.astype(float), b.astype(float), equal_nan=True)
            except Exception: return (a == b).all()
        if isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if hasattr(a, "get_params") or callable(a):
            return True
        return bool(a == b)
    except Exception:
        return False

def output(est, data):
    if hasattr(est, "transform"):
        return est.transform(data)
    return fitted_attrs(est)

def probe(est):
    learns, ychg, fitted_on = [], [], []
    needs_y = None
    for label, data in DATASETS:
        try:
            e1 = clone(est).fit(data[0], Y1); e2 = clone(est).fit(data[1], Y1)
        except Exception:
            continue
        fitted_on.append(label)
        r = []
        for e in (e1, e2):
            try: r.append(output(e, data[2]))
            except Exception: r.append(None)
        if r[0] is None and r[1] is None:
            v = not same(fitted_attrs(e1), fitted_attrs(e2))
        elif r[0] is None or r[1] is None:
            v = True  # fitted on other values, one refuses the new rows (unknown categories)
        else:
            v = not same(r[0], r[1]) or not same(fitted_attrs(e1), fitted_attrs(e2))
        learns.append(v)
        if ychg:
            pass
        else:
          try:
            s1 = clone(est).fit(data[0], Y1); s2 = clone(est).fit(data[0], Y2)
            ychg.append(not same(output(s1, data[2]), output(s2, data[2])))
          except Exception:
            pass
        if needs_y is None:
            try: clone(est).fit(data[0]); needs_y = False
            except Exception: needs_y = True
        if v or len(fitted_on) >= 8:
            break
    return (any(learns) if learns else None), (any(ychg) if ychg else None), needs_y, fitted_on

def classes(lib):
    if lib == "sklearn":
        from sklearn.utils import all_estimators
        return all_estimators()
    if lib == "imblearn":
        from imblearn.utils.testing import all_estimators
        return all_estimators()
    if lib == "category_encoders":
        import category_encoders as ce
        return [(n, getattr(ce, n)) for n in ce.__all__]
    if lib == "feature_engine":
        import feature_engine
        out = {}
        for m in pkgutil.walk_packages(feature_engine.__path__, "feature_engine."):
            if any(p.startswith("_") for p in m.name.split(".")) or ".datasets" in m.name: continue
            try: mod = importlib.import_module(m.name)
            except Exception: continue
            for n, c in inspect.getmembers(mod, inspect.isclass):
                if c.__module__.startswith("feature_engine") and hasattr(c, "fit") and not n.startswith(("_", "Base")) \
                        and not inspect.isabstract(c) and "Base" not in n:
                    out[n] = c
        return sorted(out.items())



class Slow(BaseException):
    """The probe of one class ran past its time limit."""


def probe_class(lib, name, cls):
    import signal
    types = [k for k, m in [("transformer", TransformerMixin), ("classifier", ClassifierMixin),
                            ("regressor", RegressorMixin), ("cluster", ClusterMixin), ("outlier", OutlierMixin)]
             if issubclass(cls, m)]
    est = make(cls)
    tags = None
    try:
        tags = est.__sklearn_tags__() if est is not None else None
    except Exception:
        pass
    # only transformers are probed: a model, clustering or outlier detector takes its role from its mixin
    model = issubclass(cls, (ClassifierMixin, RegressorMixin, ClusterMixin, OutlierMixin)) and \
        name != "FeatureAgglomeration" or not (hasattr(cls, "transform") or hasattr(cls, "fit_transform"))

    def _alarm(*_):
        raise Slow

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(25)
    try:
        learns, ychg, needs_y, on = probe(est) if est is not None and not model else (None, None, None, [])
    except Slow:
        learns, ychg, needs_y, on = None, None, None, ["timeout"]
    signal.alarm(0)
    return dict(lib=lib, name=name, module=public_module(cls, lib), types=types, learns=learns, y_changes=ychg,
                needs_y=needs_y, fitted_on=on, constructed=est is not None,
                requires_fit=getattr(tags, "requires_fit", None),
                target_required=getattr(getattr(tags, "target_tags", None), "required", None),
                est_type=getattr(tags, "estimator_type", None),
                methods=[m for m in ("transform", "fit_transform", "predict", "fit_predict", "fit_resample",
                                     "score_samples", "kneighbors") if hasattr(cls, m)])

#: classes whose role the probe cannot decide, or of libraries not installed here: name -> (role, module, source)
HAND: dict[str, tuple[str, str, str]] = {
    # scikit-learn: label encoders (fitted on y, by design; the analysis decides by the column they encode)
    "LabelEncoder": ("labels", "sklearn.preprocessing", "fitted on a label vector"),
    "LabelBinarizer": ("labels", "sklearn.preprocessing", "fitted on a label vector"),
    "MultiLabelBinarizer": ("labels", "sklearn.preprocessing", "fitted on a label vector"),
    "MissingIndicator": ("learns", "sklearn.impute", "API reference: features='missing-only' (default) keeps the"
                         " features that had missing values during fit"),
    # slow to fit (past the probe's time limit on a loaded machine) or predictors that transform too
    "DictionaryLearning": ("learns", "sklearn.decomposition", "API reference: fit learns the dictionary"),
    "TSNE": ("learns", "sklearn.manifold", "API reference: fit_transform embeds the rows it is given"),
    "RFECV": ("supervised", "sklearn.feature_selection", "API reference: fit(X, y) eliminates features by CV"),
    "SequentialFeatureSelector": ("supervised", "sklearn.feature_selection", "API reference: fit(X, y) adds or"
                                  " removes features by a cross-validated score"),
    "LinearDiscriminantAnalysis": ("supervised", "sklearn.discriminant_analysis", "API reference: a classifier"
                                   " whose transform projects on the class-separating directions"),
    "PLSRegression": ("supervised", "sklearn.cross_decomposition", "API reference: fit(X, Y) learns from both"),
    "IterativeImputer": ("learns", "sklearn.impute", "API reference: experimental (enable_iterative_imputer), so"
                         " all_estimators() leaves it out; fit models each feature from the others"),
    "KernelCenterer": ("learns", "sklearn.preprocessing", "API reference: fit stores the column means of the kernel"
                       " matrix (K_fit_rows_)"),
    "FrozenEstimator": ("stateless", "sklearn.frozen", "API reference: fit does nothing (the wrapped fit is kept)"),
    "PLSCanonical": ("supervised", "sklearn.cross_decomposition", "API reference: fit(X, Y) learns from both"),
    "CCA": ("supervised", "sklearn.cross_decomposition", "API reference: fit(X, Y) learns from both"),
    "PLSSVD": ("supervised", "sklearn.cross_decomposition", "API reference: fit(X, Y) learns from both"),
    # feature-engine classes the probe's inputs do not fit (dates, probabilities, binary targets): their API pages
    "DatetimeFeatures": ("stateless", "feature_engine.datetime", "feature-engine API: extracts date parts"),
    "DatetimeOrdinal": ("stateless", "feature_engine.datetime", "feature-engine API: days since a given start_date"),
    "DatetimeSubtraction": ("stateless", "feature_engine.datetime", "feature-engine API: differences of columns"),
    "ArcsinTransformer": ("stateless", "feature_engine.transformation", "feature-engine API: arcsin(sqrt(x))"),
    "GeoDistanceFeatures": ("stateless", "feature_engine.creation", "feature-engine API: distance of two points"),
    "TextFeatures": ("stateless", "feature_engine.text", "feature-engine API: counts per text"),
    "DecisionTreeDiscretiser": ("supervised", "feature_engine.discretisation", "feature-engine API: fit(X, y) trees"),
    "DecisionTreeEncoder": ("supervised", "feature_engine.encoding", "feature-engine API: fit(X, y) trees"),
    "DecisionTreeFeatures": ("supervised", "feature_engine.creation", "feature-engine API: fit(X, y) trees"),
    "SelectByInformationValue": ("supervised", "feature_engine.selection", "feature-engine API: information value"
                                 " of each feature against y"),
    "WoEEncoder": ("supervised", "feature_engine.encoding", "feature-engine API: weight of evidence against y"),
    "ProbeFeatureSelection": ("supervised", "feature_engine.selection", "feature-engine API: fit(X, y) compares"
                              " each feature's importance with random probe features"),
    "DropFeatures": ("stateless", "feature_engine.selection", "feature-engine API: drops the columns it is given"),
    "FunctionSampler": ("stateless", "imblearn", "imbalanced-learn API: applies the function given (default: none)"),
    # keras preprocessing layers with adapt() (keras.io/api/layers/preprocessing_layers: "adapt() ... computes
    # the layer's state from a dataset"); the stateless ones have no adapt()
    "Normalization": ("learns", "keras.layers", "keras.io: Normalization.adapt computes mean and variance"),
    "Discretization": ("learns", "keras.layers", "keras.io: Discretization.adapt computes bin boundaries"),
    "StringLookup": ("learns", "keras.layers", "keras.io: StringLookup.adapt builds the vocabulary"),
    "IntegerLookup": ("learns", "keras.layers", "keras.io: IntegerLookup.adapt builds the vocabulary"),
    "TextVectorization": ("learns", "keras.layers", "keras.io: TextVectorization.adapt builds the vocabulary"),
    "CategoryEncoding": ("stateless", "keras.layers", "keras.io: num_tokens given, no adapt()"),
    "Hashing": ("stateless", "keras.layers", "keras.io: hashes each input, no adapt()"),
    "Rescaling": ("stateless", "keras.layers", "keras.io: scale and offset given, no adapt()"),
    # umap-learn (umap-learn.readthedocs.io, "UMAP API"): fit learns the embedding of the rows
    "UMAP": ("learns", "umap", "umap-learn API: UMAP.fit/transform"),
    "ParametricUMAP": ("learns", "umap.parametric_umap", "umap-learn API: ParametricUMAP"),
    # hmmlearn (hmmlearn.readthedocs.io, "API Reference"): fit(X, lengths) learns the hidden states' start, transition and
    # emission parameters from the rows, unsupervised; predict(X) gives each row's most likely state, as a mixture's
    # predict gives its component
    "GaussianHMM": ("clusterer", "hmmlearn.hmm", "hmmlearn API: GaussianHMM.fit(X), predict(X) -> states"),
    "GMMHMM": ("clusterer", "hmmlearn.hmm", "hmmlearn API: GMMHMM.fit(X), predict(X) -> states"),
    "CategoricalHMM": ("clusterer", "hmmlearn.hmm", "hmmlearn API: CategoricalHMM.fit(X), predict(X) -> states"),
    "MultinomialHMM": ("clusterer", "hmmlearn.hmm", "hmmlearn API: MultinomialHMM.fit(X), predict(X) -> states"),
    "PoissonHMM": ("clusterer", "hmmlearn.hmm", "hmmlearn API: PoissonHMM.fit(X), predict(X) -> states"),
    "VariationalGaussianHMM": ("clusterer", "hmmlearn.vhmm", "hmmlearn API: VariationalGaussianHMM.fit(X), predict(X)"),
    "VariationalCategoricalHMM": ("clusterer", "hmmlearn.vhmm", "hmmlearn API: VariationalCategoricalHMM.fit(X), predict(X)"),
    # boruta (github.com/scikit-learn-contrib/boruta_py): fit(X, y) selects features with a forest
    "BorutaPy": ("supervised", "boruta", "boruta_py README: BorutaPy.fit(X, y), transform(X)"),
    # scikit-rebate (epistasislab.github.io/scikit-rebate, "Using skrebate"; Urbanowicz et al., J. Biomed. Inform.
    # 85, 2018): the Relief-based selectors' fit(X, y) scores every feature by its nearest neighbours of the same and
    # of the other class, feature_importances_ holds the scores and transform(X) keeps the n_features_to_select best
    "ReliefF": ("supervised", "skrebate", "skrebate docs: ReliefF.fit(X, y), feature_importances_, transform(X)"),
    "SURF": ("supervised", "skrebate", "skrebate docs: SURF.fit(X, y), feature_importances_, transform(X)"),
    "SURFstar": ("supervised", "skrebate", "skrebate docs: SURFstar.fit(X, y), feature_importances_, transform(X)"),
    "MultiSURF": ("supervised", "skrebate", "skrebate docs: MultiSURF.fit(X, y), feature_importances_, transform(X)"),
    "MultiSURFstar": ("supervised", "skrebate", "skrebate docs: MultiSURFstar.fit(X, y), feature_importances_"),
    "TuRF": ("supervised", "skrebate", "skrebate docs: TuRF(core_algorithm=...).fit(X, y, headers), iterative Relief"),
    # optbinning (OptBinning API reference, gnpalencia.org/optbinning; Navas-Palencia, arXiv 2001.08025): fit(x, y)
    # chooses the bin edges with the target; transform gives each bin's weight of evidence or event rate
    "OptimalBinning": ("supervised", "optbinning", "OptBinning API: OptimalBinning.fit(x, y) bins with the target"),
    "ContinuousOptimalBinning": ("supervised", "optbinning", "OptBinning API: ContinuousOptimalBinning.fit(x, y) bins with the target"),
    "MulticlassOptimalBinning": ("supervised", "optbinning", "OptBinning API: MulticlassOptimalBinning.fit(x, y) bins with the target"),
    "BinningProcess": ("supervised", "optbinning", "OptBinning API: BinningProcess.fit(x, y) bins with the target"),
    "OptimalBinning2D": ("supervised", "optbinning", "OptBinning API: OptimalBinning2D.fit(x, y) bins with the target"),
    "ContinuousOptimalBinning2D": ("supervised", "optbinning", "OptBinning API: ContinuousOptimalBinning2D.fit(x, y) bins with the target"),
    "OptimalPWBinning": ("supervised", "optbinning", "OptBinning API: OptimalPWBinning.fit(x, y) bins with the target"),
    "ContinuousOptimalPWBinning": ("supervised", "optbinning", "OptBinning API: ContinuousOptimalPWBinning.fit(x, y) bins with the target"),
    "MDLP": ("supervised", "optbinning", "OptBinning API: MDLP.fit(x, y) bins with the target"),
    # tsfresh (tsfresh.readthedocs.io, "tsfresh.transformers")
    "FeatureSelector": ("supervised", "tsfresh.transformers", "tsfresh API: FeatureSelector.fit(X, y) tests relevance"),
    "RelevantFeatureAugmenter": ("supervised", "tsfresh.transformers", "tsfresh API: fit(X, y) selects relevant"
                                 " features"),
    "PerColumnImputer": ("learns", "tsfresh.transformers", "tsfresh API: fit stores per-column min, max, median"),
    "FeatureAugmenter": ("stateless", "tsfresh.transformers", "tsfresh API: extracts features per id, fit learns"
                         " nothing"),
    # sklearn-pandas (github.com/scikit-learn-contrib/sklearn-pandas)
    "DataFrameMapper": ("learns", "sklearn_pandas", "README: applies its transformers column by column"),
    "CategoricalImputer": ("learns", "sklearn_pandas", "README: replaces nulls with the most frequent value"),
    # scikit-learn wrappers of the gradient-boosting libraries (their Python API pages)
    "XGBClassifier": ("model", "xgboost", "xgboost Python API: sklearn interface"),
    "XGBRegressor": ("model", "xgboost", "xgboost Python API: sklearn interface"),
    "XGBRanker": ("model", "xgboost", "xgboost Python API: sklearn interface"),
    "XGBRFClassifier": ("model", "xgboost", "xgboost Python API: sklearn interface"),
    "XGBRFRegressor": ("model", "xgboost", "xgboost Python API: sklearn interface"),
    "LGBMClassifier": ("model", "lightgbm", "lightgbm Python API: scikit-learn API"),
    "LGBMRegressor": ("model", "lightgbm", "lightgbm Python API: scikit-learn API"),
    "LGBMRanker": ("model", "lightgbm", "lightgbm Python API: scikit-learn API"),
    "CatBoostClassifier": ("model", "catboost", "catboost Python API"),
    "CatBoostRegressor": ("model", "catboost", "catboost Python API"),
    "CatBoostRanker": ("model", "catboost", "catboost Python API"),
}
#: scikit-learn classes modelled elsewhere (pipelines, searches, composites)
META = {"Pipeline", "ColumnTransformer", "FeatureUnion", "GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV",
        "HalvingRandomSearchCV"}
#: transformers that also predict (scikit-learn: a classifier or regressor with transform())
_PREDICTING_MODULES = ("sklearn.discriminant_analysis", "sklearn.cross_decomposition")


def role(row: dict) -> str | None:
    name, types, methods = row["name"], row["types"], row["methods"]
    if name in META or row["lib"] == "feature_engine" and name in ("Pipeline", "SklearnTransformerWrapper"):
        return "meta"
    if "fit_resample" in methods:
        return "resampler"
    if ("classifier" in types or "regressor" in types) and not (
            "transform" in methods and row["module"] in _PREDICTING_MODULES):
        return "model"
    if "outlier" in types or row["est_type"] == "outlier_detector":
        return "outlier"
    if ("cluster" in types or row["est_type"] in ("clusterer", "density_estimator")) and name != "FeatureAgglomeration":
        return "clusterer"
    if "transform" in methods or "fit_transform" in methods:
        if row["learns"] is None:
            return None
        if not row["learns"]:
            return "stateless"
        return "supervised" if row["target_required"] or row["y_changes"] else "learns"
    return "other"


def table(rows: list[dict]) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list[tuple[str, str, str]]] = {}
    order = {"sklearn": 0, "imblearn": 1, "category_encoders": 2, "feature_engine": 3}
    for row in sorted(rows, key=lambda r: (order[r["lib"]], r["name"])):
        hand = HAND.get(row["name"])
        r = hand[0] if hand is not None and hand[1].split(".")[0] == row["lib"] else role(row)
        if r is None:
            sys.stderr.write(f"no role for {row['lib']} {row['name']} (probe: {row['fitted_on']})\n")
            continue
        how = "documented" if hand is not None and hand[1].split(".")[0] == row["lib"] else "probed"
        out.setdefault(row["name"], []).append((r, row["module"], how))
    for name, (r, module, _) in HAND.items():
        if not any(m.split(".")[0] == module.split(".")[0] for _, m, _ in out.get(name, [])):
            out.setdefault(name, []).append((r, module, "documented"))
    return out


def write(out: dict[str, list[tuple[str, str, str]]], versions: dict[str, str]) -> str:
    lines = ['"""Roles of estimator classes, by library: GENERATED by ``tools/estimator_roles.py`` (rerun it, do not edit).',
             "",
             "Probed by behaviour on " + ", ".join(f"{k} {v}" for k, v in versions.items()) + "; the other",
             "libraries' classes from their documentation (the script's ``HAND`` table names each page). Roles:",
             "``learns`` (fit learns from the rows), ``supervised`` (fit reads y too), ``resampler``, ``stateless``,",
             "``clusterer``, ``outlier``, ``model``, ``labels`` (fitted on a label vector), ``meta`` (modelled",
             "elsewhere), ``other`` (fitted objects that neither transform nor predict rows).",
             '"""', "", "from __future__ import annotations", "",
             "#: class name -> ((role, module, how), ...): one entry per library defining the name, scikit-learn's first;",
             "#: ``how`` is ``probed`` (by behaviour) or ``documented``",
             "ROLES: dict[str, tuple[tuple[str, str, str], ...]] = {"]
    for name in sorted(out):
        entries = ", ".join(f'("{r}", "{m}", "{h}")' for r, m, h in out[name])
        lines.append(f'    "{name}": ({entries},),')
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import argparse
    from importlib.metadata import version
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probe-json", help="write the raw probe results to this file as well")
    parser.add_argument("--from-json", nargs="+", help="write the table from raw probe results written before")
    parser.add_argument("--libs", nargs="+", default=["sklearn", "imblearn", "category_encoders", "feature_engine"],
                        help="probe only these libraries (with --probe-json: to probe them in parallel)")
    args = parser.parse_args()
    libs = args.libs
    if args.from_json:
        rows = []
        for path in args.from_json:
            with open(path) as fh:
                rows.extend(json.load(fh))
    else:
        rows = [probe_class(lib, name, cls) for lib in libs for name, cls in classes(lib)]
    if args.probe_json:
        with open(args.probe_json, "w") as fh:
            json.dump(rows, fh, indent=0)
    dists = {"scikit-learn": "scikit-learn", "imbalanced-learn": "imbalanced-learn",
             "category_encoders": "category_encoders", "feature-engine": "feature-engine"}
    sys.stdout.write(write(table(rows), {k: version(v) for k, v in dists.items()}))
