"""Boolean masks drawn at random: a shuffled split written by hand, for the static leakage analysis.

Scripts that predate ``train_test_split`` (and many signal-processing ones still) split with a random mask::

    keep = np.random.rand(len(windows)) < 0.8
    train_x, test_x = windows[keep], windows[~keep]

Each row goes to the kept side with probability 0.8, independently of its neighbours (NumPy ``random.rand`` draws
uniformly from [0, 1)), and ``~keep`` selects exactly the other rows (pandas user guide, "Boolean indexing"): the
pair is a split of the rows *in random order*, as ``train_test_split`` with its default ``shuffle=True`` is. Issue 17
wave 91: overlapping windows of one accelerometer series sent to training and test by such a mask (windows sharing
half their samples on both sides, :mod:`.windows`).

:func:`drawn_fraction` reads the mask syntactically: a comparison of a random draw (``rand``, ``random``,
``random_sample``, ``ranf``, ``uniform`` of ``np.random``, of a ``Generator`` named ``rng``/``gen``..., or
``torch.rand``) with a number between 0 and 1, either way round (``0.8 > np.random.rand(n)``), or
``np.random.choice([True, False], n, p=[0.8, 0.2])``; a share held in a name is the training share unless the name
says test (``test_ratio``). It returns the share of rows the mask keeps, so the smaller side
is the held-out one when no side is named for testing (:mod:`.maskpairs`). A mask of the data's own values
(``df.x < 0.5``) draws nothing and is not read here.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.vocab import looks_like_test

__all__ = ["drawn_fraction"]

#: calls that draw uniform numbers in [0, 1) (``uniform`` with its defaults)
_UNIFORM = frozenset({"rand", "random", "random_sample", "ranf", "uniform"})
#: words in the receiver of such a call that say it is a random source (``np.random``, ``rng``, ``torch``)
_SOURCES = ("random", "rng", "gen", "torch", "prng", "state")


def _draw(node: ast.expr) -> bool:
    """``np.random.rand(n)``, ``rng.random(n)``, ``torch.rand(n)``: one uniform number in [0, 1) a row."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _UNIFORM):
        return False
    if node.func.attr == "uniform" and (len(node.args) >= 2 and not (
            isinstance(node.args[0], ast.Constant) and node.args[0].value == 0 and isinstance(node.args[1], ast.Constant)
            and node.args[1].value == 1) or any(k.arg in ("low", "high") for k in node.keywords)):
        return False  # uniform(-1, 1): not a share of the rows
    receiver = ast.unparse(node.func.value).lower()
    return any(word in receiver for word in _SOURCES)


def _share(node: ast.expr) -> float | None:
    """A number between 0 and 1; a name (``trainSplitRatio``) stands for the training share unless it is named for
    testing (``test_ratio``), the way the idiom is written."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool) \
            and 0 < node.value < 1:
        return float(node.value)
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = node.id if isinstance(node, ast.Name) else node.attr
        return 0.25 if looks_like_test(name) or "test" in name.lower() else 0.75
    return None


def _choice(node: ast.expr) -> float | None:
    """``np.random.choice([True, False], n, p=[0.8, 0.2])``: the share of ``True``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "choice"
            and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) and _draw_source(node.func.value)):
        return None
    values = [e.value if isinstance(e, ast.Constant) else None for e in node.args[0].elts]
    if sorted(map(repr, values)) != ["False", "True"]:
        return None
    probs = next((k.value for k in node.keywords if k.arg == "p"), node.args[3] if len(node.args) > 3 else None)
    if not isinstance(probs, (ast.List, ast.Tuple)):
        return 0.5
    shares = [_share(e) for e in probs.elts]
    return shares[values.index(True)] if None not in shares and len(shares) == 2 else None


def _draw_source(node: ast.expr) -> bool:
    return any(word in ast.unparse(node).lower() for word in _SOURCES)


def drawn_fraction(node: ast.expr) -> float | None:
    """The share of rows the mask ``node`` keeps when it is drawn at random (see the module docstring), else
    ``None``."""
    while isinstance(node, ast.Attribute) and node.attr == "values":
        node = node.value
    chosen = _choice(node)
    if chosen is not None:
        return chosen
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return None
    left, op, right = node.left, node.ops[0], node.comparators[0]
    if _draw(left) and _share(right) is not None:
        share = _share(right)
        below = isinstance(op, (ast.Lt, ast.LtE))
    elif _draw(right) and _share(left) is not None:
        share = _share(left)
        below = isinstance(op, (ast.Gt, ast.GtE))
    else:
        return None
    if not isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) or share is None:
        return None
    return share if below else 1 - share
