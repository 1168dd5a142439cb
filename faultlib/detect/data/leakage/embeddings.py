"""Word embeddings trained on texts, NumPy's index stacks, and aliases of a short loop, for the static leakage
analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_fit``, ``_expr``, ``_store`` and
``_lookup`` from there). Each rule is named for what the library does:

* **gensim embeddings** (``gensim.models.Word2Vec``, ``FastText``, ``Doc2Vec``): the constructor given a corpus
  (``sentences``, ``corpus_iterable``, ``documents``) builds the vocabulary and trains the vectors on it, as
  ``build_vocab(texts)`` followed by ``train(texts)`` does (gensim API, "models.word2vec": "If you supply
  sentences, the model will be initialized with them"). A vector read from the model (``model[w]``,
  ``model.wv[w]``, ``model.wv.get_vector(w)``, ``model.infer_vector(words)``) carries that fit: document features
  averaged from vectors trained on every text, then split, are a fit before the split. A model loaded from a
  file (``KeyedVectors.load_word2vec_format``, pretrained vectors) learnt nothing from these rows;
* **comprehensions** (``[np.mean([m.wv[w] for w in d], axis=0) for d in docs]``): the element is evaluated once
  with its names bound to unknown values, and the list carries the fits of its element;
  over a column (``table['text']``, ``table['text'].values``, ``.tolist()``) it has its rows, one item a row
  and the fits of the column; so does a value rewritten item by item under its own name
  (``words = [stem(w) for w in words]``: the words of one message stay that message's row)
  (over anything else the rows are not known, and the list is a new value as before:
  iterating a frame gives its column names, ``df.col.iloc[i]`` one cell's items); an empty list appended a vector of unknown
  rows in a loop (``out.append(vector)``) carries the embedding's fit;
* **arrays split together are aligned** (scikit-learn ``train_test_split(*arrays)``: "allowed inputs are lists,
  numpy arrays ... with same shape[0]", split by the same indices): an array of unknown rows (document vectors
  built in a loop) split beside the labels of a table has that table's rows;
* **a statistic rounded** (``int(s.median())``, ``round(s.mean(), 1)``) is still that statistic;
* **a table built from reduced values** (``pd.DataFrame({'v': df.sum(axis=0).values})``: one row per column of
  ``df``; ``df.groupby('year')['v'].sum()``: one row per group) is a new table with rows of its own, not a number
  (a count or a sum carries no fit; a group mean stays a statistic: a target encoding);
* **NumPy index stacks** ``np.c_[a, b]`` / ``np.r_[a, b]`` (NumPy "Indexing routines"): columns or rows of the
  arrays listed, so the result holds what its parts hold (``np.column_stack`` is already a call);
* **a short loop over named tables** (``for part in [train, test]: part['Age'] = part['Age'].fillna(
  part['Age'].median())``, the Kaggle "combine" idiom): pandas item assignment changes the frame the loop
  variable names, which is the table ``train`` or ``test`` names too (Python binds names to objects, the loop
  makes no copy); what the loop variable holds at the end of a pass is written back to the names that held that
  table, so a statistic the test table computed of itself reaches the model that scores it. The same for the
  tables an object keeps (``for frame in (self.train, self.test):`` in a feature-engineering class's method): the
  attributes of an object in scope that held the table are written back too (issue 17, wave 99).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.blocks import Blocks
from faultlib.detect.data.leakage.counts import counts_per_key
from faultlib.detect.data.leakage.itemwindows import gathered_windows
from faultlib.detect.data.leakage.relabels import relabels_each_item
from faultlib.detect.data.leakage.rowunions import row_union
from faultlib.detect.data.leakage.values import Data, Est, MaybeData, as_data
from faultlib.detect.data.leakage.windows import positional_items
from faultlib.pyflow.values import UNKNOWN, Const, Instance, Ref, Tup
from faultlib.pyflow.walk import walk_once

#: gensim models trained by their constructor when given a corpus, and the keyword naming that corpus
EMBEDDINGS = frozenset({"Word2Vec", "FastText", "Doc2Vec"})
_CORPUS_KEYWORDS = ("sentences", "corpus_iterable", "documents", "corpus_file")
#: methods that train an embedding model on the texts they are given (gensim ``build_vocab``, ``train``)
_TRAIN = frozenset({"build_vocab", "train"})
#: methods and attributes that read vectors out of a trained model
_VECTORS = frozenset({"get_vector", "word_vec", "get_mean_vector", "infer_vector", "__getitem__"})
_VIEWS = frozenset({"wv", "dv", "vectors", "docvecs"})  # docvecs: the name of dv before gensim 4
#: NumPy index objects that stack the arrays listed in their brackets
_INDEX_STACKS = frozenset({"c_", "r_"})


class EmbeddingSemantics:
    """Embedding models, NumPy index stacks and loop aliases (see the module docstring)."""

    _in_place: frozenset[int] = frozenset()  # comprehensions that rewrite the value they iterate (see in_place)

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last in EMBEDDINGS and ref.module.split(".")[0] in ("gensim", ""):
            est = Est(ref.last, "transformer", preprocessing=True)
            corpus = args[0] if args else next((kwargs[k] for k in _CORPUS_KEYWORDS if k in kwargs), None)
            self._train_embedding(est, corpus, node, frame)
            return est
        if ref.name in ("int", "float", "round") and args and isinstance(args[0], Data) and args[0].rows is None \
                and args[0].taints:
            return args[0]  # int(part['age'].median() / 0.5 + 0.5): still the statistic, rounded
        out = super()._library(ref, args, kwargs, node, frame)
        if ref.last in ("DataFrame", "Series") and isinstance(out, Data) and out.rows is None and not out.taints:
            return UNKNOWN  # pd.DataFrame({'v': totals.values}) of per-column sums: a new table, rows of its own
        return out

    def _train_embedding(self, est: Est, corpus: Any, node: ast.Call, frame: Any) -> None:
        from faultlib.detect.data.leakage.values import maybe_data

        data = maybe_data(corpus)
        if data is None and isinstance(corpus, MaybeData):
            data = corpus.as_data()
        if data is not None:
            self._fit(est, data, False, "train", node, frame)

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if isinstance(receiver, Est) and receiver.cls in EMBEDDINGS:
            if name in _TRAIN:
                corpus = args[0] if args else next((kwargs[k] for k in _CORPUS_KEYWORDS if k in kwargs), None)
                self._train_embedding(receiver, corpus, node, frame)
                return UNKNOWN
            if name in _VECTORS:
                return self._vectors(receiver, args[:1])
        if name in vocab.REDUCTIONS and isinstance(node.func, ast.Attribute) and any(
                isinstance(n, ast.Attribute) and n.attr == "groupby" for n in ast.walk(node.func.value)) and \
                not counts_per_key(name, node.func.value):  # (a count per group is a statistic: counts.py)
            from faultlib.detect.data.leakage.values import maybe_data

            data = maybe_data(receiver)
            if data is None or not data.taints:
                return UNKNOWN  # df.groupby('Year')['v'].sum(): one row per group, a table of its own
        if name in ("append", "extend") and isinstance(receiver, Tup) and not receiver.items and args and \
                isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            item = args[0]
            if isinstance(item, Data) and item.rows is None and any(f.estimator in EMBEDDINGS for f in item.taints):
                self._store(node.func.value.id, item, frame)  # out = []; out.append(vector): a list of vectors
                return UNKNOWN
        return super()._method_value(receiver, name, args, kwargs, node, frame)

    def _vectors(self, est: Est, keys: list[Any]) -> Any:
        """What reading vectors of ``keys`` out of a trained ``est`` gives: the keys' rows, with its fit."""
        from faultlib.detect.data.leakage.values import maybe_data

        if est.fit is None:
            return UNKNOWN
        key = maybe_data(keys[0]) if keys else None
        return Data(key.rows if key is not None else None, frozenset({est.fit}) | (key.taints if key else frozenset()),
                    False)

    def _expr(self, node: ast.expr | None, frame: Any) -> Any:
        from faultlib.detect.data.leakage.frames import _names_columns

        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and not (
                isinstance(node, ast.ListComp) and _names_columns(node)):
            return self._comprehension(node, frame)
        return super()._expr(node, frame)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import maybe_data

        names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        saved = {n: frame.locals[n] for n in names if n in frame.locals}
        each = self._each_known_item(node, frame)
        if each is not None:
            return each
        built = self._each_candidate(node, frame, names, saved)
        if built is not None:
            return built
        values = []
        try:
            for gen in node.generators:
                values.append(self._expr(gen.iter, frame))
                names_ = values[-1].items if isinstance(values[-1], Tup) else ()
                # [f(df, c) for c in ['job', 'city']]: each item is a column name (a str), as the first one is
                item = names_[0] if names_ and all(isinstance(i, Const) and isinstance(i.value, str) for i in names_) \
                    else _any_item(names_) if names_ else _counted_ranking(values[-1])
                self._bind(gen.target, item, frame, node.lineno)
                for cond in gen.ifs:
                    self._expr(cond, frame)
            values.append(self._expr(node.elt, frame))
        finally:
            for n in names:
                frame.locals.pop(n, None)
            frame.locals.update(saved)
        taints = frozenset().union(*(d.taints for d in (maybe_data(v) for v in values) if d is not None))
        walked = maybe_data(values[0])
        if walked is not None and walked.taints and relabels_each_item(node):  # [f"c{i}" for i in ids] (relabels.py)
            return Data(walked.rows, taints, walked.test)
        first = maybe_data(values[0]) if _one_item_a_row(node.generators[0].iter) or id(node) in self._in_place \
            else None
        if first is not None and first.rows is not None:
            return Data(first.rows, taints, first.test)  # [t.split() for t in table['text']]: one item a row
        element = maybe_data(values[-1])
        if element is not None and element.rows is not None and (positional_items(
                node, getattr(self, "_bindings", None)) or gathered_windows(node)):  # (itemwindows.py)
            return Data(element.rows, taints, element.test)  # [s[i - w:i] for i in range(...)]: windows of s
        counted = _counted_ranking(values[0])
        if isinstance(values[-1], Tup) and counted is not UNKNOWN:
            # [(cols[i], v) for i, v in enumerate(imp)]: the ranking, as zip's pairs are
            return Data(None, taints | counted.items[1].taints, False)
        if isinstance(values[-1], Tup) and any(maybe_data(i) is not None for i in values[-1].items):
            # [encode(train, test, col) for col in cols]: a list of (train, test) pairs; its one evaluated item stands
            # for every item, so zip(*pairs) (semantics) gives the training parts and the test parts
            return Tup((values[-1],))
        if walked is not None and walked.rows is None and walked.taints:
            # [names.index(c) for c in chosen]: items derived from a fitted choice (a selector's columns) are that choice
            return Data(None, walked.taints, False)
        # rows unknown: only what the element adds (a vector read from a model)
        return Data(None, element.taints, False) if element is not None and element.taints else UNKNOWN

    def _each_candidate(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, frame: Any, names: set[str],
                        saved: dict[str, Any]) -> Tup | None:
        """``[(n, cls()) for n, cls in MODELS.items()]`` over a list of candidate models (:mod:`.modellists`): the
        element once per item, the list of what it built; ``None``: not such a comprehension (one ``for``, no
        ``if``)."""
        from faultlib.detect.data.leakage.modellists import model_list

        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async or \
                isinstance(node, ast.SetComp):
            return None
        gen = node.generators[0]
        it = gen.iter.func.value if isinstance(gen.iter, ast.Call) and isinstance(gen.iter.func, ast.Attribute) and \
            gen.iter.func.attr in ("items", "values") and not gen.iter.args else gen.iter
        if not isinstance(it, (ast.Name, ast.List, ast.Tuple, ast.Dict)):
            return None  # read twice when it is not such a list: only names and literals, which do nothing
        source = self._expr(gen.iter, frame)
        if not isinstance(source, Tup) or not model_list(source.items):
            return None
        out = []
        try:
            for item in source.items:
                self._bind(gen.target, item, frame, node.lineno)
                out.append(self._expr(node.elt, frame))
        finally:
            for n in names:
                frame.locals.pop(n, None)
            frame.locals.update(saved)
        return Tup(tuple(out))

    def _each_known_item(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, frame: Any) -> Blocks | None:
        """``[m[keep, :] for m in blocks]`` over a list built by appends (:class:`~.blocks.Blocks`): the element once,
        with the name bound to one block (what ``blocks[0]`` gives); the result is again a list of blocks. ``None``:
        not such a comprehension (one ``for``, no ``if``, over blocks), or an element that is not data."""
        from faultlib.detect.data.leakage.values import maybe_data

        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
            return None
        gen = node.generators[0]
        source = self._expr(gen.iter, frame)
        if not isinstance(source, Blocks):
            return None
        names = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        saved = {n: frame.locals[n] for n in names if n in frame.locals}
        try:
            self._bind(gen.target, Data(source.rows, source.taints, source.test), frame, node.lineno)
            element = maybe_data(self._expr(node.elt, frame))
        finally:
            for n in names:
                frame.locals.pop(n, None)
            frame.locals.update(saved)
        return Blocks(element.rows, element.taints, element.test) if element is not None else None

    def _aligned(self, args: list[Any]) -> list[Any]:
        """``train_test_split(vectors, table['y'])``: arrays of unknown rows take the rows of those split with
        them (one table's rows; else the arguments as they are)."""
        from faultlib.detect.data.leakage.values import maybe_data

        datas = [maybe_data(a) for a in args]
        known = {d.rows for d in datas if d is not None and d.rows is not None}
        if len(known) != 1 or not any(d is not None and d.rows is None and d.taints for d in datas):
            return args
        rows = next(iter(known))
        return [Data(rows, d.taints, d.test) if d is not None and d.rows is None else a for a, d in zip(args, datas)]

    def _embedding_attribute(self, base: Any, attr: str) -> Any:
        """``model.wv`` of a trained embedding: the model itself (its vectors); ``None``: not one of these."""
        if isinstance(base, Est) and base.cls in EMBEDDINGS and attr in _VIEWS:
            return base
        return None

    def _stacked_subscript(self, base: Any, index_node: ast.expr, frame: Any) -> Any:
        """``model[word]`` of a trained embedding, ``np.c_[a, b]``; ``None``: not one of these."""
        if isinstance(base, Est) and base.cls in EMBEDDINGS:
            return self._vectors(base, [self._expr(index_node, frame)])
        if isinstance(base, Ref) and base.last in _INDEX_STACKS and base.module.split(".")[0] in ("numpy", "np"):
            items = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
            values = [self._expr(i, frame) for i in items if not isinstance(i, ast.Slice)]
            datas = [as_data(v) for v in values]
            if base.last == "r_" and len(values) > 1 and all(d is not None for d in datas):
                return row_union(datas, self._test_parts)  # np.r_[X, X_test]: rows stacked (rowunions.py)
            return self._combine(values)
        return None

    def _loop_item_done(self, item: Any, after: Any, frame: Any) -> None:
        from faultlib.detect.data.leakage.values import maybe_data

        if after is item or not isinstance(item, (Data, MaybeData)):
            return
        new, old = maybe_data(after), maybe_data(item)
        if new is None or old is None or new.rows != old.rows or not new.taints - old.taints:
            return  # a rebinding to other rows (part = part[mask]) makes a new table, not a change of this one
        scopes = [frame.locals] if frame.locals is self.globals else [frame.locals, self.globals]
        for scope in scopes:
            for name, value in list(scope.items()):
                if value is item:
                    scope[name] = after
                elif isinstance(value, Instance):  # for frame in (self.train, self.test): the tables self keeps
                    for attr, held in list(value.attrs.items()):
                        if held is item:
                            value.attrs[attr] = after


#: calls that cut one text into its tokens (``text.split()``, NLTK's ``word_tokenize``)
_TOKENIZERS = frozenset({"split", "word_tokenize", "wordpunct_tokenize", "tokenize"})


def _token_list(expr: ast.expr) -> bool:
    """``text.split()``, ``word_tokenize(text)`` or a comprehension over a name: the tokens of one text."""
    if isinstance(expr, ast.ListComp) and len(expr.generators) == 1 and isinstance(expr.generators[0].iter, ast.Name):
        return True
    return isinstance(expr, ast.Call) and (isinstance(expr.func, ast.Attribute) and expr.func.attr in _TOKENIZERS
                                           or isinstance(expr.func, ast.Name) and expr.func.id in _TOKENIZERS)


def in_place(tree: ast.Module) -> frozenset[int]:
    """Ids of the comprehensions that rewrite one text's tokens item by item: assigned back to the name they iterate,
    each item passed through a call or kept as it is (``words = [stem(w) for w in words if w not in stops]``,
    ``words = [w for w in words if w not in stops]``), or iterating a name bound only to one text's tokens
    (``stems = [ps.stem(w) for w in words]`` with ``words = text.split()``) or a tokenizer call itself
    (``[w for w in text.split() if w not in stops]``): the words of one message stay that message's row."""
    token_names: dict[str, bool] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            name = n.targets[0].id
            token_names[name] = token_names.get(name, True) and _token_list(n.value)
    out = set()
    for n in walk_once(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and
                isinstance(n.value, ast.ListComp) and len(n.value.generators) == 1):
            continue
        gen, name = n.value.generators[0], n.targets[0].id
        elt = n.value.elt
        same = isinstance(gen.iter, ast.Name) and (gen.iter.id == name or token_names.get(gen.iter.id, False)) or \
            isinstance(gen.iter, ast.Call) and _token_list(gen.iter)  # [t for t in text.split() if t not in stops]
        item_wise = isinstance(elt, ast.Call) or isinstance(elt, ast.Name) and isinstance(
            gen.target, ast.Name) and elt.id == gen.target.id
        if same and item_wise and isinstance(gen.target, ast.Name) and not any(
                isinstance(s, ast.Subscript) for part in (elt, *gen.ifs) for s in ast.walk(part)):
            out.add(id(n.value))
    return frozenset(out)


#: attributes of a pandas table that are not one of its columns (pandas API, "DataFrame": attributes)
_NOT_COLUMNS = frozenset({"columns", "index", "dtypes", "shape", "T", "axes", "values", "iloc", "loc", "at", "iat",
                          "str", "dt", "cat", "plot", "size", "ndim", "empty", "attrs", "flags", "array"})


def _counted_ranking(value: Any) -> Any:
    """``(i, v)`` of ``enumerate(scores)`` where ``scores`` is a vector a fit produced (``model.feature_importances_``:
    no rows, some fits): each ``v`` is one of its scores and carries its fits, so ``[(cols[i], v) for i, v in
    enumerate(imp)]`` keeps the ranking (Python library reference, built-in ``enumerate``: pairs of a count and an
    item). ``UNKNOWN`` for anything else."""
    from faultlib.detect.data.leakage.values import Enum, maybe_data

    inner = maybe_data(value.inner) if isinstance(value, Enum) else None
    if inner is None or inner.rows is not None or not inner.taints:
        return UNKNOWN
    return Tup((UNKNOWN, inner))


def _any_item(items: tuple[Any, ...]) -> Any:
    """``[s.rank() for s in (imp_rf, imp_xgb)]`` over a short tuple of known values (a helper's ``*args``): the
    name stands for each item in turn, so it carries what any of them carries (the union of their fits); rows are
    the first item's when every item has the same. ``UNKNOWN`` when no item is data."""
    from faultlib.detect.data.leakage.values import maybe_data

    datas = [d for d in (maybe_data(i) for i in items) if d is not None]
    if not datas or not any(d.taints for d in datas):
        return UNKNOWN
    rows = datas[0].rows if all(d.rows == datas[0].rows for d in datas) else None
    return Data(rows, frozenset().union(*(d.taints for d in datas)), False)


def _one_item_a_row(node: ast.expr) -> bool:
    """``table['text']``, ``table['text'].values``, ``table['text'].tolist()``, ``list(table['text'])``: a column,
    iterated value by value. A column read as an attribute (``list(table.message)``, ``table.message.values``) is the
    same column (pandas user guide, "Indexing and selecting data": attribute access) -- but only behind a table name
    (``a.b`` of a bare name), and never a table attribute that is not a column (``table.columns``, ``table.index``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list" and len(
            node.args) == 1 and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("tolist", "to_list"):
        node = node.func.value
    if isinstance(node, ast.Attribute) and node.attr in ("values", "array"):
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr not in _NOT_COLUMNS \
            and not node.attr.startswith("_"):
        return True
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(
        node.slice.value, str)


__all__ = ["EMBEDDINGS", "EmbeddingSemantics", "in_place"]
