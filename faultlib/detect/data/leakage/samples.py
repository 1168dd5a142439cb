"""Aggregates of one sample's own rows, for the static leakage analysis.

Some tables hold several rows per *sample*: a molecule's atom pairs (``molecule_name``), a breath's time steps
(``breath_id``), an app installation's sessions (``installation_id``), a match's history (a bare ``id``), a
sequence's sensor readings (or a ``series_id``'s), a passenger group's travellers, an American-football play's
players and frames (``play_id``: the NFL Big Data Bowl serves and scores whole plays, wave 56), a card customer's
monthly statements (``customer_ID``: one default label per customer, the statements only its history), a game
session's events (``session_id``: one prediction per session, issue 17 stop 47), a pet's photo metadata and
description sentiments (PetFinder's ``PetID``: one adoption speed per pet, its image and text files only its
description), a household's members (``household_id``; the Costa Rican poverty data's ``idhogar``, Spanish
*hogar* with an ``id`` prefix: the members' schooling averaged per household is the household's own, issue 17
stop 50), a learning-to-rank search or query's candidate items (``srch_id``, ``query_id``, ``qid``: one ranking per
search is scored, and ranking data is split by search, ``GroupKFold(groups=srch_id)``: the price z-score of each
hotel within its search is the search's own, issue 17 wave 89), a clinic visit's protein measurements (``visit_id``:
the Parkinson's progression data predicts per visit), an order's candidate products (``order_id``: a basket is
predicted per order; both nouns only with their id, :data:`KEYED_NOUNS`; issue 17 stop 54). The competition
(or the split) keeps each sample whole, so a statistic per sample,

    df['dist_mean'] = df.groupby('molecule_name')['dist'].transform('mean')
    agg = df.groupby(['breath_id'])[cols].agg(['mean', 'max'])
    npx = df.groupby('visit_id').agg(npx_mean=('NPX', 'mean'))     # named aggregation: the column NPX

reads only that sample's own rows: it is a per-row feature (like ``x.max(axis=1)``), not a fit across the rows
of a split, and run on the test table it uses no training row and the test rows of no other sample. Recognised:

* a key (string, or any key of a list: ``['molecule_name', 'atom_index_0']`` groups inside one molecule) named
  for a sample: a bare ``id``, or a sample noun (:data:`SAMPLE_NOUNS`) alone or followed by ``id``/``name``/
  ``no``/``number``/``idx``/``index``/``key``, or written after ``id`` in one word (``idhogar``). Cross-cutting ids stay fits: a stock, a store, an item, a user or
  a time step (``stock_id``, ``time_id``) has rows on both sides of a split, and their statistics are taken over
  the rows of other samples;
* of columns that are not the target: a per-sample mean of the target (``groupby('breath_id')['pressure']``
  with ``y = df['pressure']``; a label-like column when the script names no target) is target leakage and stays a statistic, and so does a
  reduction of the whole grouped table (no column chosen: the target is among them).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import label_like
from faultlib.pyflow.values import Const, Tup

#: nouns of an entity whose rows together are one sample (one prediction, one row of the submission)
SAMPLE_NOUNS = frozenset({"molecule", "installation", "breath", "sequence", "match", "essay", "segment",
                          "series", "play", "customer", "session", "pet", "household", "hogar", "search", "srch",
                          "query", "qid"})
_SUFFIXES = frozenset({"id", "name", "no", "number", "idx", "index", "key"})
#: sample nouns of an entity whose rows go on across periods (a customer's purchases week after week, a household's
#: or an app installation's history, a pet's listings, a time series): a split in time (the last week held out,
#: :mod:`.periodsplit`) cuts each one's rows in two, so a statistic per entity then reads its held-out rows too (Ji
#: et al., ACM TOIS 41(3), 2023: activity features built from the evaluation period inflate offline scores); an
#: episode (a session, a visit, an order, a search, a breath, a play, a match) lies within one period and stays whole
LASTING_NOUNS = frozenset({"customer", "household", "hogar", "installation", "pet", "series"})
#: nouns of a sample only with an id after them (``visit_id``, ``order_id``): a bare ``order`` may be a sort order
#: or a taxonomic rank, a category that cuts across samples
KEYED_NOUNS = frozenset({"visit", "order"})


def sample_key(name: Any) -> bool:
    """``'breath_id'``, ``'molecule_name'``, ``'id'``, ``'PassengerGroup'``: a column naming one sample per value."""
    if not isinstance(name, str):
        return False
    tokens = vocab.name_tokens(name)
    if tokens == ["id"] or tokens[-2:] == ["passenger", "group"] and len(tokens) == 2:
        return True
    if len(tokens) == 1 and tokens[0].startswith("id") and tokens[0][2:] in SAMPLE_NOUNS:
        return True  # idhogar: the id prefix and the noun in one word
    if len(tokens) == 2 and tokens[0] in KEYED_NOUNS and tokens[1] in _SUFFIXES:
        return True  # visit_id, order_id
    return bool(tokens) and tokens[0] in SAMPLE_NOUNS and all(t in _SUFFIXES for t in tokens[1:])


def lasting_key(name: str) -> bool:
    """A :func:`sample_key` of an entity that lasts across periods (:data:`LASTING_NOUNS`, or a bare ``id``)."""
    tokens = vocab.name_tokens(name)
    return tokens == ["id"] or bool(tokens) and (tokens[0] in LASTING_NOUNS or tokens[0].startswith("id") and
                                                 tokens[0][2:] in LASTING_NOUNS)


def lasting_keys(keys: Any) -> bool:
    """The abstract ``by`` of a ``groupby`` holds a :func:`lasting_key`."""
    items = keys.items if isinstance(keys, Tup) else (keys,)
    return any(isinstance(k, Const) and sample_key(k.value) and lasting_key(k.value) for k in items)


def sample_keys(keys: Any, *, lasting: bool = True) -> bool:
    """The abstract ``by`` of a ``groupby``: a string or a list with at least one :func:`sample_key`;
    ``lasting=False`` when a later period of the rows is held out (:mod:`.periodsplit`): the key of an entity that
    lasts across periods (:func:`lasting_key`) then names no sample the split keeps whole."""
    items = keys.items if isinstance(keys, Tup) else (keys,)
    return any(isinstance(k, Const) and sample_key(k.value) and (lasting or not lasting_key(k.value)) for k in items)


def groupby_call(expr: ast.expr) -> ast.Call | None:
    """``df.groupby(k)`` of ``df.groupby(k)``, ``df.groupby(k)['c']``, ``df.groupby(k).c``: the GroupBy's call."""
    if isinstance(expr, (ast.Subscript, ast.Attribute)) and not (
            isinstance(expr, ast.Attribute) and expr.attr == "groupby"):
        expr = expr.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "groupby":
        return expr
    return None


def _columns(expr: ast.expr, call: ast.Call) -> list[str | None] | None:
    """The columns reduced: ``g['c']`` -> ``['c']``, ``g[['a', 'b']]``, ``g.c``, the keys of ``agg({'a': ...})``;
    ``None`` for a name (``g[cols]``, ``agg(spec)``), a variable whose columns are unknown (``None`` items);
    ``[]`` when no column is chosen (every column, the target included)."""
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant):
            return [key.value] if isinstance(key.value, str) else [None]
        if isinstance(key, (ast.List, ast.Tuple)):
            return [e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None for e in key.elts]
        return [key.id if isinstance(key, ast.Name) else None]
    if isinstance(expr, ast.Attribute) and expr.attr != "groupby":
        return [expr.attr]
    spec = call.args[0] if call.args else None
    named = [k.value for k in call.keywords if k.arg is not None]
    if spec is None and named and call.func.attr in ("agg", "aggregate"):  # type: ignore[union-attr]
        return [_named_column(v) for v in named]  # agg(npx_min=('NPX', 'min')): the column of each named output
    if isinstance(spec, ast.Dict) and spec.keys and all(isinstance(k, ast.Constant) for k in spec.keys):
        return [k.value if isinstance(k.value, str) else None for k in spec.keys]
    if isinstance(spec, ast.Name) and call.func.attr in ("agg", "aggregate"):  # type: ignore[union-attr]
        return [spec.id]
    return []


def own_rows(inner: ast.expr, call: ast.Call, sample_groupbys: set[int], targets: set) -> bool:
    """``call`` (``transform``/``agg``/a statistic on ``inner``) reduces a GroupBy over a sample key, of columns
    that are not the target: each value is one sample's own rows (see the module docstring)."""
    grouped = groupby_call(inner)
    if grouped is None or id(grouped) not in sample_groupbys:
        return False
    columns = _columns(inner, call)
    named = any(isinstance(t, str) for t in targets)  # else a label-like name (y, target) is taken for the target
    return bool(columns) and all(c is None or c not in targets and (named or not label_like(c)) for c in columns)


def _named_column(value: ast.expr) -> str | None:
    """The column of one named aggregation (``('NPX', 'min')``, ``pd.NamedAgg(column='NPX', aggfunc='min')``:
    pandas API, "Named aggregation"), ``None`` when not written out."""
    if isinstance(value, ast.Tuple) and value.elts:
        first = value.elts[0]
        return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
    if isinstance(value, ast.Call):
        given = value.args[0] if value.args else next((k.value for k in value.keywords if k.arg == "column"), None)
        return given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) else None
    return None


__all__ = ["KEYED_NOUNS", "LASTING_NOUNS", "SAMPLE_NOUNS", "groupby_call", "lasting_key", "lasting_keys", "own_rows",
           "sample_key", "sample_keys"]
