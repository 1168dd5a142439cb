"""In-process vector indexes and graph libraries that GraphRAG stores keep on disk: hnswlib, nano-vectordb,
python-igraph, NetworkX's file formats and graspologic's clustering and embeddings.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; FAISS,
Chroma and the server-backed vector databases are in :mod:`~faultlib.detect.serving.blocking.sdks` and
:mod:`~faultlib.detect.serving.blocking.libraries.vectors`). None of these libraries has an async API: an index
insert or search runs in the calling thread (hnswlib's ``num_threads`` only parallelises it *inside* the call, which
still returns when it is done), a save or load writes or reads the whole index or graph file, and a clustering or a
node embedding walks the whole graph. Each entry names the documentation of the call. Left out on purpose: building
an empty index (``hnswlib.Index(...)``, ``init_index``: an allocation), nano-vectordb's ``upsert`` (a copy into the
in-memory matrix) and NetworkX's in-memory graph operations.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

C = "blocking_cpu"
F = "blocking_file_io"

HNSWLIB = ("https://github.com/nmslib/hnswlib/blob/master/README.md#python-bindings-api (add_items inserts the "
           "vectors into the HNSW graph and knn_query searches it, both in the calling thread; save_index writes "
           "and load_index reads the whole index file)")
NANO_VECTORDB = ("https://github.com/gusye1234/nano-vectordb#usage (query scores the query against every stored "
                 "vector with numpy; save writes the whole database as one JSON file)")
IGRAPH_IO = ("https://python.igraph.org/en/stable/api/igraph.Graph.html#Read_Picklez (the Read_* constructors "
             "read and parse a whole graph file; the write_* methods serialise the graph and write the file)")
IGRAPH_ALGORITHMS = ("https://python.igraph.org/en/stable/api/igraph.GraphBase.html#personalized_pagerank (the "
                     "structural algorithms run in igraph's C core over the whole graph, in the calling thread)")
NETWORKX_IO = ("https://networkx.org/documentation/stable/reference/readwrite/index.html (read_* open and parse a "
               "graph file; write_* serialise the graph and write it)")
GRASPOLOGIC = ("https://microsoft.github.io/graspologic/latest/reference/reference/partition.html#graspologic."
               "partition.hierarchical_leiden (Leiden clustering of the whole graph; embed.node2vec_embed runs "
               "random walks and trains word2vec on them)")

_IGRAPH_GRAPH = ("igraph.Graph", "igraph.GraphBase")
_IGRAPH_READERS = ("Read", "Load", "Read_Pickle", "Read_Picklez", "Read_GraphML", "Read_GraphMLz", "Read_GML",
                   "Read_Edgelist", "Read_Ncol", "Read_Lgl", "Read_Pajek", "Read_Adjacency", "Read_DIMACS",
                   "Read_DL", "Read_GraphDB")
_IGRAPH_WRITERS = ("write", "save", "write_pickle", "write_picklez", "write_graphml", "write_graphmlz", "write_gml",
                   "write_edgelist", "write_ncol", "write_lgl", "write_pajek", "write_adjacency", "write_dimacs",
                   "write_dot", "write_leda", "write_svg")
_IGRAPH_HEAVY = ("personalized_pagerank", "pagerank", "community_leiden", "community_multilevel",
                 "community_infomap", "community_walktrap", "community_edge_betweenness", "community_fastgreedy",
                 "community_label_propagation", "community_spinglass", "betweenness", "closeness",
                 "shortest_paths", "distances", "get_all_shortest_paths", "layout")
_NETWORKX_FORMATS = ("graphml", "gml", "edgelist", "weighted_edgelist", "adjlist", "multiline_adjlist", "gexf",
                     "pajek", "gpickle", "graph6", "sparse6")

GRAPH_INDEXES = Vocabulary(
    calls={
        **{f"igraph.{g.rpartition('.')[2]}.{m}": (F, IGRAPH_IO) for g in _IGRAPH_GRAPH
           for m in (*_IGRAPH_READERS, *_IGRAPH_WRITERS)},
        **{f"networkx.{verb}_{fmt}": (F, NETWORKX_IO) for verb in ("read", "write") for fmt in _NETWORKX_FORMATS},
        **{f"networkx.readwrite.{verb}_{fmt}": (F, NETWORKX_IO) for verb in ("read", "write")
           for fmt in _NETWORKX_FORMATS},
        **names(C, GRASPOLOGIC, "graspologic.partition", "hierarchical_leiden", "leiden"),
        **names(C, GRASPOLOGIC, "graspologic.embed", "node2vec_embed"),
    },
    families=(
        Family(("hnswlib.Index", "hnswlib.BFIndex"),
               {"add_items": C, "knn_query": C, "save_index": F, "load_index": F}, HNSWLIB),
        Family(("nano_vectordb.NanoVectorDB", "nano_vectordb.dbs.NanoVectorDB"), {"query": C, "save": F},
               NANO_VECTORDB),
        Family(_IGRAPH_GRAPH, {**{m: F for m in _IGRAPH_WRITERS}, **{m: C for m in _IGRAPH_HEAVY}},
               IGRAPH_IO + "; " + IGRAPH_ALGORITHMS),
    ),
    returns={**{f"igraph.Graph.{m}": "igraph.Graph" for m in _IGRAPH_READERS}},
)
