"""keyeddicts.py: a dict of tables read under a key evaluates the key expression once (it may be a call the
analysis follows), and gives the item the key names, or the join of every table for a computed key."""

from __future__ import annotations

import ast
import textwrap

from faultlib.detect.data.leakage import analyze_source
from faultlib.detect.data.leakage.source import SourceMap
from faultlib.detect.data.leakage.static import Analyzer

SOURCE = """\
    import pandas as pd
    from sklearn.cluster import KMeans

    shops = pd.read_csv("shops.csv")
    by_kmeans = shops.copy()
    by_kmeans["segment"] = KMeans(n_clusters=4).fit_predict(shops[["area", "footfall"]])
    raw = shops.copy()
    key = "kmeans"
    chosen = {"kmeans": by_kmeans, "raw": raw}[key]
"""


def test_a_constant_key_of_a_dict_of_tables_is_evaluated_once(monkeypatch):
    seen = []
    original = Analyzer._expr

    def counting(self, node, frame):
        if isinstance(node, ast.Name) and node.id == "key" and isinstance(node.ctx, ast.Load):
            seen.append(node.lineno)
        return original(self, node, frame)

    monkeypatch.setattr(Analyzer, "_expr", counting)
    analyze_source(textwrap.dedent(SOURCE), SourceMap("one.py"))
    assert seen == [9]


SPLIT = """\
    import pandas as pd
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    shops = pd.read_csv("shops.csv")
    by_kmeans = shops.copy()
    by_kmeans["segment"] = KMeans(n_clusters=4).fit_predict(shops[["area", "footfall"]])
    raw = shops.copy()
    chosen = {{"kmeans": by_kmeans, "raw": raw}}[{key}]
    a, b = train_test_split(chosen, test_size=0.3)
    clf = LogisticRegression().fit(a[["area", "footfall"]], a["closed"])
    print(clf.score(b[["area", "footfall"]], b["closed"]))
"""


def test_a_constant_key_gives_its_item_and_a_computed_one_any_table(tmp_path):
    from faultlib.detect.data.leakage import analyze_file

    def kinds(key):
        path = tmp_path / "job.py"
        path.write_text(textwrap.dedent(SPLIT.format(key=key)))
        return {f.kind for f in analyze_file(str(path))[0].findings if f.kind == "fit_before_split"}

    assert kinds('"raw"') == set()  # the table no clustering saw
    assert kinds('"kmeans"') == {"fit_before_split"}
    assert kinds('input("which? ")') == {"fit_before_split"}  # either table: the clustered one among them
