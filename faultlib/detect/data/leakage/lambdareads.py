"""What a ``lambda`` applied to each row reads besides its own argument, for the static leakage analysis.

A per-row lookup hands every row a value from a table built elsewhere::

    counts = both['shop'].value_counts()                          # rows per shop over train and test stacked
    both['shop_count'] = both['shop'].apply(lambda k: counts[k])  # the pandas method
    both['shop_count'] = list(map(lambda k: counts[k], both['shop']))   # the builtin, the same lookup

The result holds what the table was fitted on (the count encoding over the stacked rows), not only the column the
lambda walks: the lambda's free names are read once per row (Python language reference, 6.14 "Lambdas": a lambda
is a function whose body sees the names of the enclosing scope; 2.x/3.x built-in ``map``: the function applied to
each item of the iterables). :func:`lambda_read_fits` gives the fits those free names carry, for the pandas
``apply``/``map`` methods (:mod:`.frames`) and the built-in ``map`` alike (wave 52: a count table looked up per row
with the built-in ``map`` over train and test stacked was missed while its ``apply`` twin was found).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from faultlib.detect.data.leakage.values import maybe_data


def lambda_read_fits(lam: ast.Lambda, lookup: Callable[[str], Any]) -> frozenset:
    """The fits carried by the values of the names ``lam``'s body reads that are not its own parameters
    (``lookup(name)`` gives a name's value where the lambda is written)."""
    own = {a.arg for a in ast.walk(lam.args) if isinstance(a, ast.arg)}
    free = sorted({n.id for n in ast.walk(lam.body) if isinstance(n, ast.Name) and n.id not in own})
    read = [maybe_data(lookup(name)) for name in free]
    return frozenset().union(*(r.taints for r in read if r is not None))


def builtin_mapped(name: str, module: str, node: ast.Call, args: list[Any],
                   lookup: Callable[[str], Any]) -> Any:
    """``map(lambda k: table[k], rows)``, the built-in: the rows walked, with the fits of what the lambda reads
    besides its argument; ``None`` when this is not such a call (or the lambda reads no fit)."""
    if name != "map" or module or len(node.args) < 2 or not isinstance(node.args[0], ast.Lambda):
        return None
    walked = [d for d in (maybe_data(a) for a in args[1:]) if d is not None]
    if not walked:
        return None
    fits = lambda_read_fits(node.args[0], lookup)
    first = walked[0]
    if not fits - first.taints:
        return None
    return first.with_(taints=first.taints.union(*(d.taints for d in walked[1:])) | fits)


__all__ = ["builtin_mapped", "lambda_read_fits"]
