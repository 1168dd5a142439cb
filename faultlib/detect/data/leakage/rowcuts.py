"""Whether a script holds rows of its table out: a split, a random sample, a random mask or a slice of rows.

The project-level rules (:mod:`.modelfiles`: a model scored by one script on the rows another fitted it on;
:mod:`.searchhandoff`: a search's choice typed in and cross-validated on the searched rows) hold their report when a
script takes a part of the rows, since a held-out part may then be what is scored. The test must read *rows*:

* a splitter or split function (:data:`~.vocab.SPLIT_FUNCTIONS`, :data:`~.vocab.SPLITTERS`, PyTorch's
  ``random_split``/``Subset``, ``np.split``/``np.array_split``, a splitter's ``cv.split(X, y)``);
* a random sample (``df.sample(n=100)``, ``df.sample(frac=0.8)``, ``random.sample(range(n), k)``; not
  ``df.sample(frac=1)``, which reorders every row: pandas API reference, ``DataFrame.sample``), ``head(n)``/``tail(n)``
  kept in a name;
* a mask of rows: a random one (``df[np.random.rand(len(df)) < 0.8]``, :mod:`.randommasks`) or one of the data's
  own values (``df[df.year < 2023]``: a period cut, or a filter whose rows the other script may score);
* a slice of rows: ``X[:n]``, ``df.iloc[n:]``, ``X[:n, :]``, ``df.loc[:cut]``.

Not a cut of rows (issue 17 review: a training script reading ``line.split(",")`` or taking ``df.iloc[:, :-1]``
as its features was taken to hold rows out, silencing both rules in most training scripts):

* a string split: ``line.split(",")``, ``s.split()``, ``re.split(p, s)``, ``os.path.split(p)``,
  ``df.col.str.split("-")`` (Python ``str.split``, pandas ``Series.str.split``), and a slice of such a split's pieces;
* a column slice: ``df.iloc[:, :-1]``, ``X[:, 1:]``, ``df.loc[:, 'a':'f']`` (the rows part is the whole ``:``:
  NumPy "Indexing on ndarrays", pandas "Selection by position");
* a slice of the command line (``sys.argv[1:]``), of a string constant, or one only printed (``print(text[:80])``);
* a slice of a name that holds text (:mod:`.textnames`: ``name[:-4]`` of ``for name in os.listdir(d)``, a path
  built with ``os.path.join``): a string's characters, no rows (issue 17 stop 55 review).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.randommasks import drawn_fraction
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.textnames import text_names
from faultlib.pyflow.walk import tree_fact, walk_once

__all__ = ["cuts_rows"]

#: calls that hold a part of the rows out whatever their arguments (scikit-learn, PyTorch ``torch.utils.data``)
_SPLITS = vocab.SPLIT_FUNCTIONS | vocab.SPLITTERS | {"random_split", "Subset", "array_split"}
#: receivers of a ``split`` that splits a string or a path, not rows
_STRING_SPLITTERS = ("re", "os.path", "path", "str", "posixpath", "ntpath", "shlex")
#: calls whose arguments are shown, not used as data
_SHOWN = frozenset({"print", "display", "info", "debug", "warning", "write", "format", "log"})


def _string_split(call: ast.Call) -> bool:
    """``line.split(",")``, ``s.split()``, ``re.split(p, s)``, ``df.c.str.split('-')``: a split of text."""
    if not isinstance(call.func, ast.Attribute):
        return True  # a bare split(...) of the user's own
    receiver = ast.unparse(call.func.value)
    if receiver in _STRING_SPLITTERS or receiver.endswith((".str", ".path")):
        return True
    if isinstance(call.func.value, ast.Constant):
        return True
    first = call.args[0] if call.args else None
    return (first is None and not call.keywords) or (isinstance(first, ast.Constant) and isinstance(
        first.value, (str, type(None)))) or any(k.arg in ("sep", "maxsplit") for k in call.keywords)


def _sample_cuts(call: ast.Call) -> bool:
    """``df.sample(n=...)``/``df.sample(frac<1)``; ``sample(frac=1)`` only reorders the rows."""
    frac = next((k.value for k in call.keywords if k.arg == "frac"), None)
    return not (isinstance(frac, ast.Constant) and frac.value == 1 and not any(k.arg == "n" for k in call.keywords))


def _call_cuts(call: ast.Call, kept: set[int]) -> bool:
    name = call_name(call)
    if name in _SPLITS:
        return True
    if name == "split":
        return not _string_split(call)
    if name == "sample":
        return _sample_cuts(call)  # df.sample(n=500), random.sample(range(n), k): a random part of the rows
    return name in ("head", "tail") and isinstance(call.func, ast.Attribute) and id(call) in kept


def _rows_part(sub: ast.Subscript) -> ast.expr:
    """The first index of ``a[i, j]`` (the rows), else the whole index."""
    index = sub.slice
    return index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index


def _text(node: ast.expr) -> bool:
    """``sys.argv``, a string constant, the pieces of a string split (or one of them), an f-string."""
    while isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        node = node.value  # fname.split('.')[0]
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return True
    if isinstance(node, ast.Call) and call_name(node) in ("split", "rsplit", "splitlines"):
        return call_name(node) != "split" or _string_split(node)
    return ast.unparse(node) in ("sys.argv", "argv")


def _slice_cuts(sub: ast.Subscript, texts: frozenset[str]) -> bool:
    """A slice of rows, or a mask of them; not a slice of a name that holds text (``texts``, :mod:`.textnames`:
    ``name[:-4]`` of a file name drops its extension)."""
    rows = _rows_part(sub)
    if any(isinstance(n, ast.Compare) for n in ast.walk(rows)) or drawn_fraction(rows) is not None:
        return True
    if not isinstance(rows, ast.Slice) or rows.lower is None and rows.upper is None:
        return False  # a column slice (``[:, 1:]``), a key
    receiver = sub.value.value if isinstance(sub.value, ast.Attribute) and sub.value.attr in ("iloc", "loc") \
        else sub.value
    return not (_text(receiver) or isinstance(receiver, ast.Name) and receiver.id in texts)


def _shown(tree: ast.AST) -> set[int]:
    """The nodes inside the arguments of a print/log call (shown, not used)."""
    out: set[int] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and call_name(n) in _SHOWN:
            for arg in [*n.args, *(k.value for k in n.keywords)]:
                out.update(id(m) for m in ast.walk(arg))
    return out


def _kept(tree: ast.AST) -> set[int]:
    """The calls that are the value of an assignment (``top = df.head(100)``), as opposed to shown ones."""
    return {id(n.value) for n in walk_once(tree) if isinstance(n, (ast.Assign, ast.AnnAssign)) and
            isinstance(n.value, ast.Call)}


def cuts_rows(tree: ast.AST) -> bool:
    """The script holds rows of its data out somewhere (see the module docstring); computed once per tree
    (:func:`~faultlib.pyflow.walk.tree_fact`): :mod:`.searchhandoff` asks it of every other script of the project for
    each pair of them."""
    return tree_fact(tree, _cuts_rows)


def _cuts_rows(tree: ast.AST) -> bool:
    shown, kept, texts = _shown(tree), _kept(tree), text_names(tree)
    for n in walk_once(tree):
        if id(n) in shown:
            continue
        if isinstance(n, ast.Call) and _call_cuts(n, kept):
            return True
        if isinstance(n, ast.Subscript) and _slice_cuts(n, texts):
            return True
        if isinstance(n, (ast.Compare, ast.Call)) and drawn_fraction(n) is not None:
            return True  # keep = np.random.rand(len(df)) < 0.8, used later as df[keep]
    return False
