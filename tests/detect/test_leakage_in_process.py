"""One file's leakage findings do not depend on what the same process analysed before (the benchmark analyses
hundreds of files in one process; module-level memos of :mod:`faultlib.detect.data.leakage` and
:mod:`faultlib.pyflow`, by text, tree, root or key, must not carry one project's answer into another's).

Two projects share every script's text and differ only where the answer comes from elsewhere: the Kedro
``pipeline.py`` that joins the normalising node to the splitting one (:mod:`.kedronodes`), and the YAML
configuration naming the file the cross-validating script reads (:mod:`.yamlpaths`, :mod:`.repofiles`). Each file is
analysed in a fresh process, then all of them in one process in both orders (A, B, A, B), the disk cache shared.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import faultlib

NODES_PREP = """
    import pandas as pd


    def normalize(table):
        return (table - table.min()) / (table.max() - table.min())
"""
NODES_MODEL = """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split


    def train_and_score(table):
        X_train, X_test, y_train, y_test = train_test_split(table.drop(columns=["label"]), table["label"])
        model = LogisticRegression().fit(X_train, y_train)
        return model.score(X_test, y_test)
"""
PIPELINE = """
    from kedro.pipeline import node, pipeline

    from .nodes import {func}


    def create_pipeline(**kwargs):
        return pipeline([node({func}, "{source}", "{target}")])
"""
PREPARE = """
    import pandas as pd
    from sklearn.preprocessing import StandardScaler

    table = pd.read_csv("raw.csv")
    table[["a", "b"]] = StandardScaler().fit_transform(table[["a", "b"]])
    table.to_csv("prepared/rows_scaled.csv", index=False)
"""
MODEL = """
    import pandas as pd
    import yaml
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    cfg = yaml.safe_load(open("config.yaml"))
    table = pd.read_csv(cfg["train_table"])
    print(cross_val_score(LogisticRegression(), table.drop(columns=["label"]), table["label"], cv=5))
"""
RUN = """
import json, sys
from faultlib.detect.data.leakage import analyze_file
out = []
for path in sys.argv[1:]:
    report, _ = analyze_file(path)
    out.append([path, sorted(json.dumps([f.kind, f.severity, f.message, f.location, f.evidence], sort_keys=True,
                                        default=str) for f in report.findings)])
print(json.dumps(out))
"""


def _project(root: Path, joined: bool) -> list[str]:
    files = {
        "README.md": "a project\n",
        "config.yaml": f"paths:\n  train_table: prepared/{'rows_scaled' if joined else 'other_rows'}.csv\n",
        "prepare.py": PREPARE, "model.py": MODEL,
        "src/pkg/__init__.py": "", "src/pkg/pipelines/__init__.py": "",
        "src/pkg/pipelines/prep/__init__.py": "", "src/pkg/pipelines/model/__init__.py": "",
        "src/pkg/pipelines/prep/nodes.py": NODES_PREP, "src/pkg/pipelines/model/nodes.py": NODES_MODEL,
        "src/pkg/pipelines/prep/pipeline.py": PIPELINE.format(func="normalize", source="raw_table",
                                                             target="normalized_table"),
        "src/pkg/pipelines/model/pipeline.py": PIPELINE.format(
            func="train_and_score", source="normalized_table" if joined else "raw_table", target="score"),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return [str(root / p) for p in ("src/pkg/pipelines/prep/nodes.py", "src/pkg/pipelines/model/nodes.py",
                                    "prepare.py", "model.py")]


def _analysed(paths: list[str], cache: Path) -> list[tuple[str, list[str]]]:
    env = {**os.environ, "FAULTLIB_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([str(Path(faultlib.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", RUN, *paths], capture_output=True, text=True, env=env, timeout=300,
                          check=True)
    return [(p, f) for p, f in json.loads(done.stdout)]


def test_a_file_gets_the_same_findings_whatever_the_process_analysed_before(tmp_path):
    a, b = _project(tmp_path / "A", joined=True), _project(tmp_path / "B", joined=False)
    cache = tmp_path / "cache"
    fresh = {p: f for path in (*a, *b) for p, f in _analysed([path], cache)}
    assert fresh[a[0]] and not fresh[b[0]]  # the Kedro pipeline joins A's normalising node to its split only
    assert fresh[a[2]] and not fresh[b[2]]  # A's configuration names the scaled file its model reads
    for order in ([*a, *b, *a, *b], [*b, *a, *b, *a]):
        for path, found in _analysed(order, cache):
            assert found == fresh[path], path
