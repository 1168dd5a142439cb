"""LMDB, the memory-mapped embedded key-value store: ``lmdb`` (py-lmdb) and ``lmdbm``'s dict interface over it.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; found by
held-out wave 69: a site crawler keeps its crawl in LMDB and reads and writes it from its async crawl loop).
``lmdb.open`` opens or creates the environment's data and lock files and maps them; a transaction's ``get``
reads the mapped pages, which the kernel faults in from disk, and ``put``/``delete`` write them, committed (and
fsynced, ``sync=True`` by default) when the write transaction ends; a write transaction (``begin(write=True)``) waits
for the environment's single writer lock. A ``Cursor`` walks the records the same way. ``lmdbm``'s ``Lmdb.open``
opens such an environment, and each mapping operation of an ``Lmdb`` (``get``, ``items``, ``update``...) runs a
transaction on it; its ``env`` is the ``lmdb.Environment``
(:data:`~faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

F = "blocking_file_io"
DOCS = "https://lmdb.readthedocs.io/en/release/"
OPEN = DOCS + "#environment-class (lmdb.open: \"Structure for a database environment\", opens or creates the files)"
TXN = (DOCS + "#transaction-class (get/put/delete/replace/pop read or write the memory-mapped database; the commit "
       "of a write transaction syncs it to disk) and #cursor-class (a cursor's moves and iteration read records)")
LMDBM = ("https://github.com/Dobatymo/lmdb-python-dbm#readme (Lmdb.open opens an LMDB environment; an Lmdb is a "
         "MutableMapping whose every operation runs a transaction)")

ENVIRONMENTS = ("lmdb.Environment", "lmdb.cpython.Environment")
TRANSACTIONS = ("lmdb.Transaction", "lmdb.cpython.Transaction")
CURSORS = ("lmdb.Cursor", "lmdb.cpython.Cursor")
CURSOR_READS = ("first", "last", "next", "prev", "set_key", "set_range", "get", "getmulti", "iternext",
                "iterprev", "iternext_dup", "iternext_nodup", "iterprev_dup", "iterprev_nodup", "put", "putmulti",
                "delete", "pop", "replace", "__iter__")
LMDBM_MAPS = ("lmdbm.Lmdb", "lmdbm.lmdbm.Lmdb")

LMDB_STORES = Vocabulary(
    calls={"lmdb.open": (F, OPEN), **{e: (F, OPEN) for e in ENVIRONMENTS},
           **{f"{m}.open": (F, LMDBM) for m in LMDBM_MAPS}},
    families=(
        Family(ENVIRONMENTS, {"copy": F, "copyfd": F, "sync": F, "stat": F}, OPEN),
        Family(TRANSACTIONS, {m: F for m in ("get", "put", "delete", "replace", "pop", "commit")}, TXN),
        Family(CURSORS, {m: F for m in CURSOR_READS}, TXN),
        Family(LMDBM_MAPS, {m: F for m in ("get", "items", "keys", "values", "update", "pop", "setdefault",
                                           "sync", "__getitem__", "__setitem__", "__delitem__")}, LMDBM),
    ),
    returns={"lmdb.open": "lmdb.Environment", **{e: "lmdb.Environment" for e in ENVIRONMENTS},
             **{f"{e}.begin": "lmdb.Transaction" for e in ENVIRONMENTS},
             **{f"{t}.__enter__": "lmdb.Transaction" for t in TRANSACTIONS},
             **{f"{t}.cursor": "lmdb.Cursor" for t in TRANSACTIONS},
             **{f"{m}.open": m for m in LMDBM_MAPS}},
)
