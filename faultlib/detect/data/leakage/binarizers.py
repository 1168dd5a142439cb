"""Label and multi-label binarizers used on feature columns: one-hot encoders under another name.

``LabelBinarizer`` and ``MultiLabelBinarizer`` (scikit-learn ``sklearn.preprocessing``) learn the set of
classes of the values they are fitted on (``classes_``) and write one 0/1 column per class, which is what
``OneHotEncoder`` does for one column (resp. a column of sets). On a *feature* column they are therefore
fits under the same policy as ``OneHotEncoder``: fitted on rows a later split divides (or outside the
folds a cross-validation makes) they learn the category set of the held-out rows. scikit-learn documents
them for targets ("binarize labels in a one-vs-all fashion"); on the target they learn only the class
names the task defines and stay silent, as ``LabelEncoder`` does (:func:`.targets.feature_encoding`).
``MultiLabelBinarizer(classes=[...])`` with the classes written out learns nothing, as
``OneHotEncoder(categories=[...])`` does not.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.targets import label_like
from faultlib.detect.data.leakage.values import Est
from faultlib.pyflow.values import Tup

#: the binarizers read as one-hot encoders of a feature column
BINARIZERS = frozenset({"LabelBinarizer", "MultiLabelBinarizer"})


def binarizes_feature(est: Est, call: ast.Call, assigned: dict[int, list[str]], targets: set,
                      bindings: dict[str, list[ast.expr]] | None = None) -> bool:
    """Whether ``lb.fit_transform(arg)`` (or ``lb.fit(arg)``) binarizes a feature rather than the target.

    Args:
        est: the binarizer (its ``options['classes']``: the ``classes=`` it was built with, a written-out list
            learns nothing).
        call: the ``fit``/``fit_transform`` call.
        assigned: names each call's value is assigned to, by ``id`` of the call (``y_bin = lb.fit_transform(y)``).
        targets: column names (str) or positions (int) the script uses as its target.
        bindings: ``{name: [assigned expressions]}`` of the module: a name argument is read through what it was
            assigned (``f = df['target']; lb.fit_transform(f)`` binarizes the target), two assignments deep.
    Returns:
        False when the argument or the assigned name is named for a label (``y``, ``y_train``, ``df.target``,
        ``df['species']`` with ``species`` the script's target) or there is no argument; True otherwise.
    """
    if isinstance(est.options.get("classes"), Tup):
        return False
    arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("y", "X")), None)
    if arg is None or any(label_like(n) for n in assigned.get(id(call), [])):
        return False
    seen, todo, nodes = set(), [(arg, 2)], []
    while todo:  # the argument, and what a name in it was assigned
        node, depth = todo.pop()
        nodes.append(node)
        if isinstance(node, ast.Name) and depth and bindings and node.id not in seen:
            seen.add(node.id)
            todo.extend((v, depth - 1) for v in bindings.get(node.id, []))
    for n in (m for node in nodes for m in ast.walk(node)):
        if isinstance(n, ast.Name) and (label_like(n.id) or n.id in targets):
            return False
        if isinstance(n, ast.Attribute) and (label_like(n.attr) or n.attr in targets):
            return False
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and (label_like(n.value) or n.value in targets):
            return False
    return True
