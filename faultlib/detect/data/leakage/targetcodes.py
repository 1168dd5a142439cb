"""Category encoders fitted on the target: the class names coded, no statistic of the rows.

``OneHotEncoder`` and ``OrdinalEncoder`` (scikit-learn, ``sklearn.preprocessing``) learn the categories of what
they are fitted on (``categories_``, API reference). On a *feature* column of rows a later split divides they learn
the category set of the held-out rows too, a fit like any other. On the *target* they learn only the class names
the task defines, exactly what ``LabelEncoder`` learns (scikit-learn: "This transformer should be used to encode
target values, i.e. y"), which the analysis keeps silent (:func:`.targets.feature_encoding`), as it keeps the
label binarizers on the target (:mod:`.binarizers`):

    y = OrdinalEncoder().fit_transform(table[["diagnosis"]])      # the classes as codes 0..k-1
    Y = OneHotEncoder(sparse_output=False).fit_transform(codes)    # one column per class

Told by the script's own words (issue 17, stop 47: a multiclass diagnosis notebook and an emotion-classification
notebook, whose one-hot and ordinal codes of their labels were raised as fits): the fit's value is assigned to a
name for the label (``y``, ``Y``, ``y_train``, ``labels``), or its argument picks only the script's target
columns (``table[["diagnosis"]]`` with ``diagnosis`` used as ``y`` elsewhere). A fit given ``y`` too (a supervised
encoder of that name in another library) is left alone.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.targets import label_like

#: encoders that learn only a column's category set (no target, no statistic)
TARGET_CODERS = frozenset({"OneHotEncoder", "OrdinalEncoder"})


def codes_target(call: ast.Call, assigned: dict[int, list[str]], targets: set) -> bool:
    """Whether ``enc.fit_transform(arg)`` (or ``enc.fit(arg)``) codes the target rather than a feature.

    Args:
        call: the ``fit``/``fit_transform`` call of a :data:`TARGET_CODERS` encoder.
        assigned: names each call's value is assigned to, by ``id`` of the call (``y = enc.fit_transform(...)``).
        targets: column names (str) or positions (int) the script uses as its target.
    Returns:
        True when the call has one input, and its value is assigned only to names for the label or the input is
        a pick of target columns only (``df[['diagnosis']]``, ``df['diagnosis']``); False otherwise.
    """
    if len(call.args) != 1 or call.keywords:
        return False
    names = assigned.get(id(call), [])
    if names and all(label_like(n) for n in names):
        return True
    arg = call.args[0]
    if not (isinstance(arg, ast.Subscript) and isinstance(arg.value, (ast.Name, ast.Attribute))):
        return False
    key = arg.slice
    keys = key.elts if isinstance(key, (ast.List, ast.Tuple)) else [key]
    return bool(keys) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value in targets
                              for k in keys)


__all__ = ["TARGET_CODERS", "codes_target"]
