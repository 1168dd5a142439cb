"""OpenCV's machine-learning models (``cv2.ml``) as the estimators they are, for the static leakage analysis.

``cv2.ml.KNearest_create()``, ``cv2.ml.SVM_create()``, ``cv2.ml.RTrees_create()`` ... build a model (OpenCV's
``cv::ml::StatModel``). Its API is not scikit-learn's, but the roles are the same (OpenCV reference,
"cv::ml::StatModel": ``train(samples, layout, responses)`` "Trains the statistical model", ``predict(samples)``
"Predicts response(s) for the provided sample(s)"; ``KNearest.findNearest(samples, k)`` "Finds the neighbors and
predicts responses for input vectors"):

* ``model.train(X, cv2.ml.ROW_SAMPLE, y)`` is ``fit(X, y)`` (the layout flag in the middle says rows are samples);
* ``model.predict(X)`` and ``knn.findNearest(X, k)`` predict the rows of ``X``; they return a tuple, the
  predictions second (``_, y_hat = model.predict(X_test)``; ``findNearest`` gives ``retval, results,
  neighborResponses, dist``).

So a loop that trains a ``cv2.ml`` model per candidate, predicts the test rows and keeps the best accuracy is the
same choice on the test rows as with a scikit-learn model (:mod:`~faultlib.detect.data.leakage.choices`).
A ``train`` given a ``TrainData`` object (one argument) is left alone: its rows are not followed. OpenCV sets
hyperparameters by setters (``knn.setDefaultK(k)``, ``svm.setC(c)``, ``rtree.setMaxDepth(d)``): a setter of such a
model that takes a loop's variable makes a candidate per pass, as a constructor keyword does
(:func:`opencv_setter`).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import UNKNOWN, Tup
from faultlib.pyflow.walk import walk_once

#: ``model.<method>`` -> the scikit-learn method it plays
_METHODS = {"train": "fit", "predict": "predict", "findNearest": "predict"}


def opencv_model(module: str, name: str) -> bool:
    """``cv2.ml.<Model>_create``: a factory of an OpenCV statistical model."""
    return module.split(".")[0] == "cv2" and module.endswith("ml") and name.endswith("_create")


def opencv_variables(tree: ast.Module) -> set[str]:
    """The names assigned an OpenCV model anywhere in the module (``knn = cv2.ml.KNearest_create()``)."""
    out: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(
                node.value.func, ast.Attribute) and opencv_model(ast.unparse(node.value.func.value),
                                                                 node.value.func.attr):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def opencv_setter(call: ast.Call, models: set[str]) -> bool:
    """``knn.setDefaultK(k)``: a hyperparameter setter (``set`` + a capital) of a variable holding an OpenCV model."""
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr[:3] == "set" and func.attr[3:4].isupper() and isinstance(
        func.value, ast.Name) and func.value.id in models


def opencv_call(name: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[str, list[Any], dict[str, Any]] | None:
    """The scikit-learn call an OpenCV model's method call plays (``train(X, layout, y)`` -> ``fit(X, y)``), or
    ``None`` when it plays none (a setter, ``train`` of a ``TrainData``)."""
    method = _METHODS.get(name)
    if method == "fit":
        if len(args) < 3:
            return None
        return method, [args[0], args[2]], {}
    if method == "predict":
        return method, args[:1], {}
    return None


def opencv_result(name: str, predicted: Any) -> Any:
    """What the OpenCV method returns around the predictions: a tuple with them second."""
    if name == "predict":
        return Tup((UNKNOWN, predicted))
    if name == "findNearest":
        return Tup((UNKNOWN, predicted, UNKNOWN, UNKNOWN))
    return predicted


__all__ = ["opencv_call", "opencv_model", "opencv_result", "opencv_setter", "opencv_variables"]
