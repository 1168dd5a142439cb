"""Apache Spark from Python (``pyspark``): actions that run a job and wait for it, and models read or written.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). A
``pyspark.sql.DataFrame`` is a lazy plan: ``select``/``filter``/``withColumn``... and a fitted model's
``transform`` only extend it (they return another ``DataFrame``), while an action -- ``collect``, ``count``,
``show``, ``take``, ``first``, ``head``, ``toPandas``, ``foreach`` -- submits a job to the cluster (or the local
executors) and waits through py4j until it finishes. ``PipelineModel.load``/``Pipeline.load`` and the ML models'
``load`` read a saved model through the JVM; ``save`` writes one; ``SparkSession.createDataFrame`` and ``sql``
wait on the driver. Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

ACTIONS = ("https://spark.apache.org/docs/latest/api/python/reference/pyspark.sql/dataframe.html (actions such as "
           "collect, count, show, take and toPandas run a Spark job and return its result to the driver)")
ML_IO = ("https://spark.apache.org/docs/latest/api/python/reference/api/pyspark.ml.PipelineModel.html "
         "(load reads an ML instance from the input path; save writes it)")
SESSION = ("https://spark.apache.org/docs/latest/api/python/reference/pyspark.sql/spark_session.html "
           "(createDataFrame and sql build and analyse the plan on the driver through py4j)")

_FRAMES = ("pyspark.sql.DataFrame", "pyspark.sql.dataframe.DataFrame")
_ML = ("pyspark.ml.PipelineModel", "pyspark.ml.Pipeline")
_LAZY = ("select", "selectExpr", "filter", "where", "withColumn", "withColumns", "withColumnRenamed", "drop",
         "dropna", "fillna", "join", "union", "unionByName", "groupBy", "orderBy", "sort", "limit", "distinct",
         "alias", "repartition", "coalesce", "sample", "na")

CONTEXT = ("https://spark.apache.org/docs/latest/api/python/reference/api/pyspark.SparkContext.html (constructing "
           "it launches the JVM gateway, spark-submit, and waits for it)")

SPARK = Vocabulary(
    calls={
        **{f"pyspark.{m}SparkContext": ("blocking_subprocess", CONTEXT) for m in ("", "context.")},
        **{f"{m}.load": (F, ML_IO) for m in _ML},
        **{f"pyspark.ml.{m}.load": (F, ML_IO) for m in ("classification.LogisticRegressionModel",
                                                        "classification.RandomForestClassificationModel",
                                                        "classification.GBTClassificationModel",
                                                        "regression.LinearRegressionModel",
                                                        "clustering.KMeansModel", "feature.StringIndexerModel")},
    },
    families=(
        Family(_FRAMES, {m: C for m in ("collect", "count", "show", "take", "first", "head", "tail", "toPandas",
                                         "toLocalIterator", "foreach", "foreachPartition", "toJSON")}, ACTIONS),
        Family(_ML, {"save": F}, ML_IO),
        Family(("pyspark.sql.SparkSession",), {"createDataFrame": C, "sql": C}, SESSION),
    ),
    returns={
        **{f"{m}.load": m for m in _ML},
        **{f"{m}.transform": _FRAMES[0] for m in _ML},
        **{f"{f}.{m}": _FRAMES[0] for f in _FRAMES for m in _LAZY},
        "pyspark.sql.SparkSession.createDataFrame": _FRAMES[0],
        "pyspark.sql.SparkSession.sql": _FRAMES[0],
    },
)
