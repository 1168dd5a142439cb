"""A data file the script writes itself, from rows not named for testing, is a derived table, not a held-out file.

``df.to_csv('test_sklearn_VarianceThreshold.csv')`` and later ``pd.read_csv('test_sklearn_VarianceThreshold.csv')``:
the stem starts with ``test`` (the name of an experiment, "test scikit-learn's VarianceThreshold"), but the script
wrote that file from its own rows; reading it back gives those rows again, not a competition's ``test.csv``
(Kaggle's layout, :func:`~faultlib.detect.data.leakage.sole_file.file_table`). Wave 58 (eegAnalyze's feature
selection scripts): every subject's features, written and re-read under such a name, were reported as fitted on
held-out rows. A file written from a value named for held-out rows (``test_df.to_csv('test.csv')``) keeps its
meaning, and so does every file the script only reads.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

#: keywords naming the path of a writer (pandas ``to_csv(path_or_buf=)``, NumPy ``save(file=)``, ``savetxt(fname=)``)
_PATH_KEYWORDS = ("path_or_buf", "path", "file", "fname")


def _path(call: ast.Call) -> str | None:
    """The file name constant of a writer's path: the whole path, or the data file named inside it
    (``base_path + 'features.csv'``, ``os.path.join(out, 'features.csv')``)."""
    arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in _PATH_KEYWORDS), None)
    for sub in ast.walk(arg) if arg is not None else ():
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and vocab.data_file_stem(sub.value):
            return sub.value.strip()
    return None


def _written_value(call: ast.Call, func: ast.Attribute) -> ast.expr | None:
    """``frame.to_csv(path)``: the frame; ``np.save(path, arr)`` / ``np.savetxt(path, arr)``: the array."""
    if func.attr.startswith("to_"):
        return func.value
    return call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg in ("arr", "X")),
                                                        None)


def _named_for_test(expr: ast.expr | None) -> bool:
    return expr is None or any(isinstance(n, ast.Name) and vocab.looks_like_test(n.id) or isinstance(
        n, ast.Attribute) and vocab.looks_like_test(n.attr) for n in ast.walk(expr))


def written_files(tree: ast.AST) -> frozenset[str]:
    """The path constants the script writes data to (:data:`~faultlib.detect.data.leakage.vocab.SAVES`) from a
    value no name of which is one for held-out rows."""
    out: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in vocab.SAVES:
            path = _path(node)
            if path is not None and not _named_for_test(
                    _written_value(node, node.func)):
                out.add(path)
    return frozenset(out)


def names_a_held_out_file(text: str, written: frozenset[str]) -> bool:
    """A string constant naming a data file for held-out rows (``'../input/test.csv'``) that the script does not
    write itself from its own rows."""
    return text.strip() not in written and vocab.looks_like_test(vocab.data_file_stem(text))


__all__ = ["names_a_held_out_file", "written_files"]
