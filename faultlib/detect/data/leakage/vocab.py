"""What the static analysis knows about scikit-learn (and imbalanced-learn, category_encoders) by name.

Names, not imports: a script may import ``StandardScaler`` under an alias or through a module
(``from sklearn import preprocessing as pp``); the analysis resolves the alias and matches the
class's own name here. Sources: the scikit-learn API reference (``sklearn.preprocessing``,
``sklearn.impute``, ``sklearn.decomposition``, ``sklearn.feature_selection``,
``sklearn.feature_extraction.text``, ``sklearn.model_selection``), imbalanced-learn's samplers and
category_encoders' supervised encoders.
"""

from __future__ import annotations

import re

#: preprocessing whose ``fit`` learns statistics from the rows it sees (a leak when those rows include test rows)
LEARNING_TRANSFORMERS = frozenset({
    "StandardScaler", "MinMaxScaler", "MaxAbsScaler", "RobustScaler", "QuantileTransformer", "PowerTransformer",
    "KBinsDiscretizer", "OneHotEncoder", "OrdinalEncoder", "SplineTransformer",
    "SimpleImputer", "KNNImputer", "IterativeImputer",
    "PCA", "IncrementalPCA", "KernelPCA", "TruncatedSVD", "FastICA", "NMF", "MiniBatchNMF", "FactorAnalysis",
    "SparsePCA", "MiniBatchSparsePCA", "DictionaryLearning", "MiniBatchDictionaryLearning",
    "LatentDirichletAllocation", "Nystroem", "Isomap", "LocallyLinearEmbedding", "SpectralEmbedding", "TSNE",
    "CountVectorizer", "TfidfVectorizer", "TfidfTransformer", "DictVectorizer",
    "VarianceThreshold", "ColumnTransformer", "FeatureUnion", "make_column_transformer", "make_union",
    "DataFrameMapper",  # sklearn_pandas: applies its transformers column by column
})
#: selectors, supervised encoders and samplers: their fit reads the labels, so a leak carries the target itself
SUPERVISED_TRANSFORMERS = frozenset({
    "SelectKBest", "SelectPercentile", "SelectFpr", "SelectFdr", "SelectFwe", "GenericUnivariateSelect",
    "SelectFromModel", "RFE", "SequentialFeatureSelector", "TargetEncoder", "LinearDiscriminantAnalysis",
    "NeighborhoodComponentsAnalysis", "PLSRegression", "PLSCanonical", "CCA",
    "CatBoostEncoder", "WOEEncoder", "LeaveOneOutEncoder", "JamesSteinEncoder", "MEstimateEncoder",
    "GLMMEncoder", "QuantileEncoder", "SummaryEncoder",
    "SMOTE", "SMOTENC", "SMOTEN", "ADASYN", "BorderlineSMOTE", "SVMSMOTE", "KMeansSMOTE", "RandomOverSampler",
    "RandomUnderSampler", "TomekLinks", "NearMiss", "EditedNearestNeighbours", "SMOTETomek", "SMOTEENN",
    "ClusterCentroids", "CondensedNearestNeighbour", "OneSidedSelection", "NeighbourhoodCleaningRule",
    "InstanceHardnessThreshold", "AllKNN", "RepeatedEditedNearestNeighbours",
})
#: transformers that are predictors too (scikit-learn: ``LinearDiscriminantAnalysis`` is a classifier, the
#: ``cross_decomposition`` estimators have ``predict``): ``predict``/``score`` on one is a model scoring its rows
PREDICTING_TRANSFORMERS = frozenset({"LinearDiscriminantAnalysis", "PLSRegression", "PLSCanonical", "CCA"})
#: optbinning's binners (OptBinning API reference, http://gnpalencia.org/optbinning/: ``OptimalBinning.fit(x, y)``,
#: ``BinningProcess.fit(X, y)``; Navas-Palencia, "Optimal binning: mathematical programming formulation", arXiv
#: 2001.08025): the bin edges are chosen with the target and ``transform`` gives each bin's weight of evidence
#: (or event rate), a supervised encoding like ``WOEEncoder``
OPTBINNING = frozenset({"OptimalBinning", "ContinuousOptimalBinning", "MulticlassOptimalBinning", "BinningProcess",
                        "OptimalBinning2D", "ContinuousOptimalBinning2D", "OptimalPWBinning",
                        "ContinuousOptimalPWBinning", "MDLP"})
SUPERVISED_TRANSFORMERS |= OPTBINNING
#: clustering (scikit-learn ``sklearn.cluster``, ``sklearn.mixture``): unsupervised fits whose cluster ids
#: (``labels_``, ``fit_predict``, ``predict``) become a feature column, as a transformer's output does
CLUSTERERS = frozenset({
    "KMeans", "MiniBatchKMeans", "BisectingKMeans", "GaussianMixture", "BayesianGaussianMixture",
    "AgglomerativeClustering", "DBSCAN", "HDBSCAN", "OPTICS", "Birch", "MeanShift", "SpectralClustering",
    "AffinityPropagation",
})
#: the Keras Tokenizer's (``keras.preprocessing.text.Tokenizer``) fit and its transforms, by the scikit-learn method they stand for
KERAS_METHODS = {"fit_on_texts": "fit", "fit_on_sequences": "fit", "texts_to_sequences": "transform",
                 "texts_to_matrix": "transform", "sequences_to_matrix": "transform"}
#: NumPy / pandas constructors of a grid from its ends and step (``np.arange(start, stop, step)``): numbers in,
#: evenly spaced values out, so statistics passed to them are a grid's ends, not a feature (NumPy, pandas API)
GRIDS = frozenset({"arange", "linspace", "logspace", "geomspace", "date_range", "period_range",
                   "timedelta_range", "interval_range", "bdate_range"})
#: transformers whose output does not depend on the rows they were fitted on (no leak possible)
STATELESS = frozenset({
    "Normalizer", "Binarizer", "FunctionTransformer", "HashingVectorizer", "PolynomialFeatures", "RBFSampler",
    "SkewedChi2Sampler", "AdditiveChi2Sampler", "GaussianRandomProjection", "SparseRandomProjection",
    "MissingIndicator", "LabelEncoder", "LabelBinarizer", "MultiLabelBinarizer", "FrozenEstimator",
})
PIPELINES = frozenset({"Pipeline", "make_pipeline"})
SPLITTERS = frozenset({
    "KFold", "StratifiedKFold", "GroupKFold", "StratifiedGroupKFold", "RepeatedKFold", "RepeatedStratifiedKFold",
    "ShuffleSplit", "StratifiedShuffleSplit", "GroupShuffleSplit", "LeaveOneOut", "LeavePOut", "LeaveOneGroupOut",
    "LeavePGroupsOut", "TimeSeriesSplit", "PredefinedSplit",
})
#: functions that cross-validate an estimator on the ``X`` they are given
CV_FUNCTIONS = frozenset({
    "cross_val_score", "cross_validate", "cross_val_predict", "learning_curve", "validation_curve",
    "permutation_test_score",
})
SPLIT_FUNCTIONS = frozenset({"train_test_split"})
#: functions that stack rows of several arrays (their result holds the rows of every input)
ROW_STACKS = frozenset({"concatenate", "vstack", "row_stack", "concat", "append"})
#: estimator methods
FIT = "fit"
FIT_TRANSFORM = frozenset({"fit_transform"})
FIT_RESAMPLE = frozenset({"fit_resample", "fit_sample"})
TRANSFORM = frozenset({"transform"})
EVALUATE = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "score",
                      "staged_predict", "staged_predict_proba"})
#: scikit-learn functions that fit and apply a transformer in one call (``sklearn.preprocessing.scale(X)``)
FUNCTIONAL_TRANSFORMS = frozenset({"scale", "minmax_scale", "robust_scale", "maxabs_scale", "quantile_transform",
                                   "power_transform"})
#: other methods by which a model (Keras, xgboost, statsmodels...) learns from or is scored on data
MODEL_METHODS = frozenset({"fit_generator", "train_on_batch", "evaluate", "evaluate_generator", "fit_predict",
                           "predict_classes", "partial_fit"})
#: functions and methods that save data or a fitted object (its use is elsewhere: it counts as used)
SAVES = frozenset({"to_csv", "to_parquet", "to_pickle", "to_feather", "to_hdf", "to_json", "save", "savez",
                   "savez_compressed", "savetxt", "dump", "save_model", "save_npz"})  # save_npz: scipy.sparse
#: pandas / NumPy methods and attributes that keep the rows of their receiver (a column change, a cast, a fill)
ROW_METHODS = frozenset({
    "copy", "astype", "fillna", "ffill", "bfill", "interpolate", "to_numpy", "reset_index", "set_index", "rename",
    "replace", "clip", "abs", "round", "apply", "map", "applymap", "assign", "select_dtypes", "dropna", "reshape",
    "squeeze", "toarray", "todense", "tocsr", "tocsc", "where", "mask", "pipe", "infer_objects", "convert_dtypes",
    "filter", "add_prefix", "add_suffix", "rank", "to_frame", "get_dummies", "join", "merge",
    # polars DataFrame methods that keep the frame's rows (polars API reference, "DataFrame")
    "select", "with_columns", "with_column", "fill_null", "fill_nan", "to_dummies", "cast", "hstack", "to_pandas",
    "lazy", "collect", "drop_nulls", "with_row_index", "with_row_count",
})
DATA_ATTRIBUTES = frozenset({"values", "array", "str", "dt", "cat"})
MODEL_SUFFIXES = ("Classifier", "Regressor", "Regression", "SVC", "SVR", "NB", "Lasso", "Ridge", "ElasticNet",
                  "Perceptron", "KMeans", "Classifier", "Forest", "Boosting", "LinearSVC", "LinearSVR", "Lars")
ESTIMATOR_MODULES = ("sklearn", "imblearn", "category_encoders", "xgboost", "lightgbm", "catboost")
#: reductions to one value per column (``df[mask]['price'].count()``): a number, not rows that could be held out
REDUCTIONS = frozenset({"count", "sum", "nunique", "any", "all", "prod", "idxmax", "idxmin", "item", "size",
                        "value_counts"})
#: what a fitted selector tells about the columns it kept (``X.columns[rfe.support_]``): the choice carries its fit
SELECTION_ATTRIBUTES = frozenset({"support_", "ranking_", "get_support", "get_feature_names_out", "scores_",
                                  "pvalues_"})
#: readers of a table from a file: ``pd.read_csv('train.csv')`` names the rows by the file (a Kaggle layout)
FILE_READERS = frozenset({"read_csv", "read_table", "read_parquet", "read_excel", "read_json", "read_feather",
                          "read_pickle", "read_hdf", "loadtxt", "genfromtxt", "load"})
_DATA_FILE = re.compile(r"([^/\\]+?)\.(?:csv|tsv|txt|data|parquet|pq|jsonl?|xlsx?|feather|pkl|pickle|h5|hdf5?|npy|npz)"
                        r"(?:\.(?:gz|zip|bz2|xz))?$", re.IGNORECASE)
#: a column named for a date or time: its ``max()``/``min()`` is a reference date (recency = ref - last order; the
#: first year of a calendar, ``year - year.min()``), not a statistic learnt from the rows' values
DATE_COLUMN = re.compile(r"date|timestamp|(^|_)(at|dt|ts|time|year)$", re.IGNORECASE)


def data_file_stem(path: str) -> str | None:
    """``'../input/train.csv'`` -> ``'train'``; ``None`` when ``path`` does not name a data file."""
    match = _DATA_FILE.search(path.strip())
    return match.group(1) if match else None


_TRAIN_TOKENS = frozenset({"train", "tr", "trn", "training", "trainval", "fit"})
#: reductions whose value is a statistic of the rows they run over (a hand-written fit: ``df.fillna(df.mean())``)
STATISTICS = frozenset({"mean", "std", "var", "median", "min", "max", "quantile", "mode", "sem", "nanmean", "nanstd",
                        "nanmedian", "nanvar", "amin", "amax", "nanmin", "nanmax", "percentile", "nanpercentile",
                        "average"})
#: methods and functions whose result is ordered in time (lag features, rolling windows): the rows are a series
TEMPORAL = frozenset({"shift", "rolling", "diff", "ewm", "expanding", "pct_change"})
#: column names that identify an entity whose several rows are one observation unit (a patient's visits, a
#: subject's trials, a recording session, a sensor device). User and item ids are left out on purpose: in a
#: recommender, one user's ratings on both sides of a split is the task, not a leak; device and site ids in
#: click-through data are features of one impression, not an observation unit.
ENTITY_COLUMN = re.compile(r"(^|_)(patient|subject|session|participant|animal|mouse|donor|individual|"
                           r"recording|sensor|hospital)_?id$|^(patient|subject|participant|session)$",
                           re.IGNORECASE)
#: a column naming one entity per value (``image_id``, ``ImageId``, ``PassengerId``, ``user_ID``): grouping by it
#: makes one row per entity
ID_COLUMN = re.compile(r"(^|_)(id|ID|Id)$|[a-z](Id|ID)$")
#: splitters that keep each group on one side
GROUP_SPLITTERS = frozenset({"GroupKFold", "StratifiedGroupKFold", "GroupShuffleSplit", "LeaveOneGroupOut",
                             "LeavePGroupsOut"})
_TEST_TOKENS = frozenset({"test", "testing", "tst", "te", "val", "valid", "validation", "holdout", "heldout", "eval",
                          "evaluation", "dev"})


def is_preprocessing(name: str) -> bool:
    """A transformer whose fit learns from rows (scalers, imputers, encoders, selectors, samplers...)."""
    if name in STATELESS:
        return False
    return (name in LEARNING_TRANSFORMERS or name in SUPERVISED_TRANSFORMERS or name in CLUSTERERS
            or name.startswith("Select")
            or name.endswith(("Scaler", "Imputer", "Encoder", "Vectorizer", "Discretizer", "PCA", "Sampler")))


def is_supervised(name: str) -> bool:
    """A transformer whose fit reads ``y`` whatever the call looks like."""
    return name in SUPERVISED_TRANSFORMERS or name.startswith("Select") or name.endswith("SMOTE")


def is_search(name: str) -> bool:
    """An estimator whose ``fit`` cross-validates (GridSearchCV, RFECV, LogisticRegressionCV...)."""
    return name.endswith("CV") and name[:1].isupper()


def is_model(name: str, module: str = "") -> bool:
    """A predictor from a known library (its fit/predict make it an estimator the analysis tracks)."""
    return name[:1].isupper() and (name.endswith(MODEL_SUFFIXES) or module.split(".")[0] in ESTIMATOR_MODULES)


def name_tokens(name: str) -> list[str]:
    """``X_trainScaled`` -> ``["x", "train", "scaled"]``: a variable name split at underscores and case changes."""
    return [t.lower() for t in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name) if t]


def looks_like_train(name: str | None) -> bool:
    """``train``, ``X_train``, ``df_train``, ``Xtrain``: a variable named for training rows (and nothing held out)."""
    if not name:
        return False
    tokens = name_tokens(name)
    return any(t in _TRAIN_TOKENS - {"fit", "tr"} or t[:1] in "xy" and t[1:] in ("train", "trn") for t in tokens) and \
        not any(t in _TEST_TOKENS or t[:1] in "xy" and t[1:] in _TEST_TOKENS - {"te"} for t in tokens)


def looks_like_validation(name: str | None) -> bool:
    """``x_val``, ``valid_df``, ``X_dev``: rows named for validation (a part of the training rows, not the test)."""
    tokens = [t.lower() for t in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name or "") if t]
    return any(t in ("val", "valid", "validation", "dev") or t[:1] in "xy" and t[1:] in ("val", "valid")
               for t in tokens)


def looks_like_test(name: str | None) -> bool:
    """``X_test``, ``x_val``, ``test_df``, ``Xtest``, ``y_holdout``: a variable named for held-out rows."""
    if not name:
        return False
    tokens = [t for t in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name) if t]
    if any(t.lower() in _TRAIN_TOKENS or t.lower()[1:] in _TRAIN_TOKENS - {"fit"} and t.lower()[:1] in "xy"
           for t in tokens):
        return False  # X_train_valid, trainval_df: training rows (with validation rows), not held out
    for token in tokens:
        low = token.lower()
        if low in _TEST_TOKENS:
            return True
        if low[:1] in ("x", "y") and low[1:] in _TEST_TOKENS - {"te"}:
            return True
    return False
