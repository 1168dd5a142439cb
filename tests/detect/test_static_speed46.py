"""What makes ``check leakage`` cheaper without changing a finding: the index of a project's scripts kept on disk
(repocache.py: a cache hit gives what a cold run gives, a changed script or a broken cache file is indexed again), a
module's scopes read once for both passes of the index (pathexprs.PathEnv.seeing), and the newer-syntax rewriter's
patterns looked for where they can match (readers/newer_syntax.py: the same answers as the patterns over the whole
text). Every example is written for this test; each test has its own cache directory."""

from __future__ import annotations

import ast
import json
import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file, repofiles
from faultlib.detect.data.leakage.pathexprs import PathEnv
from faultlib.readers import newer_syntax

PREPARE = """\
    import pandas as pd
    from sklearn.preprocessing import StandardScaler

    rows = pd.read_csv("rows.csv")
    scaler = StandardScaler()
    features = rows.drop(columns=["label"])
    scaled = pd.DataFrame(scaler.fit_transform(features), columns=features.columns)
    scaled["label"] = rows["label"]
    scaled.to_csv("prepared/rows_scaled.csv", index=False)
"""

MODEL = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    table = pd.read_csv("prepared/rows_scaled.csv")
    print(cross_val_score(LogisticRegression(), table.drop(columns=["label"]), table["label"], cv=5))
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project of two scripts handing a scaled table over, and a cache directory of its own."""
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(tmp_path / "cache"))
    repofiles._KEPT.clear()  # what this process kept is not the disk's hit
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("a project\n")
    (root / "prepare.py").write_text(textwrap.dedent(PREPARE))
    (root / "model.py").write_text(textwrap.dedent(MODEL))
    yield root
    repofiles._KEPT.clear()


def findings(path):
    report, _ = analyze_file(str(path))
    return [(f.kind, f.severity, f.message, f.location, f.evidence) for f in report.findings]


def cached_files(root):
    return sorted((root.parent / "cache" / "leakage").glob("repofiles-*.json"))


def test_a_cache_hit_gives_the_findings_of_a_cold_run(project):
    cold = findings(project / "prepare.py")
    assert any(f[4].get("handed_on") for f in cold)  # the leak shows only with the reader joined
    assert len(cached_files(project)) == 1
    repofiles._KEPT.clear()
    warm = findings(project / "prepare.py")
    assert warm == cold


def test_the_index_read_back_is_the_index_built(project):
    built = repofiles.repo_files(project / "prepare.py")
    repofiles._KEPT.clear()
    read = repofiles.repo_files(project / "prepare.py")
    assert read is not built
    assert (read.root, read.accesses, read.modules, read.config_keys) == (built.root, built.accesses, built.modules,
                                                                        built.config_keys)
    assert read.accesses  # the write and the read of rows_scaled.csv


def test_a_changed_script_is_indexed_again(project):
    findings(project / "prepare.py")
    (project / "model.py").write_text(textwrap.dedent(MODEL).replace("prepared/rows_scaled.csv", "other.csv"))
    repofiles._KEPT.clear()
    again = findings(project / "prepare.py")
    assert not any(f[4].get("handed_on") for f in again)  # the reader no longer reads what the writer wrote
    assert len(cached_files(project)) == 2


def test_a_changed_yaml_configuration_is_indexed_again(project):
    (project / "config.yaml").write_text("paths:\n  scaled: prepared/rows_scaled.csv\n")
    assert repofiles.repo_files(project / "prepare.py").config_keys["scaled"].text == "prepared/rows_scaled.csv"
    (project / "config.yaml").write_text("paths:\n  scaled: prepared/other_rows.csv\n")  # in the same process
    assert repofiles.repo_files(project / "prepare.py").config_keys["scaled"].text == "prepared/other_rows.csv"
    assert len(cached_files(project)) == 2


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": 1, "key": "other"}),
                                     json.dumps({"format": 1, "accesses": 3})])
def test_a_broken_cache_file_is_rebuilt(project, content):
    cold = findings(project / "prepare.py")
    [cached] = cached_files(project)
    cached.write_text(content)
    repofiles._KEPT.clear()
    assert findings(project / "prepare.py") == cold


def test_an_unwritable_cache_directory_keeps_nothing_and_fails_nothing(project, monkeypatch, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(blocker))
    assert any(f[4].get("handed_on") for f in findings(project / "prepare.py"))


def test_scopes_read_once_answer_as_a_fresh_environment(project):
    tree = ast.parse(textwrap.dedent("""\
        import config
        from config import DATA
        OUT = DATA + "/out.csv"
        def save(frame, name="x.csv"):
            path = "folder/" + name
            frame.to_csv(path)
    """))
    modules = {"config": {"DATA": repofiles.FilePath("data")}}
    fresh, seen = PathEnv(tree, None, modules), PathEnv(tree).seeing(modules)
    for name, line in (("OUT", 3), ("DATA", 3), ("path", 6), ("name", 6)):
        assert seen.lookup(name, line) == fresh.lookup(name, line)
    assert seen.lookup("OUT", 3) is not None


@pytest.mark.parametrize("text", [
    "type X = int\n", "  type X[T] = list[T]\n", "x = 1\ntype  Y=1\n", "a = 1; type x = 2\n", "dtype = 3\n",
    "def f[T](x): pass\n", "class C[T]: pass\n", "undef f[1]\n", "éclass C[T]: pass\n", "print 'class A[T]'\n",
    "try:\n  pass\nexcept A, B:\n  pass\n", "  except* A, B :\n", "except (A, B):\n", "except A,B: #\n",
    "xexcept A, B:\n", "\texcept A, B: pass\n", "# except A, B:\nexcept A:\n",
])
def test_newer_syntax_is_looked_for_as_the_patterns_over_the_whole_text(text):
    for source in (text, text * 3, "x = 1\n" * 50 + text):
        assert newer_syntax._has_pep758(source) == bool(newer_syntax._PEP758.search(source))
        assert newer_syntax._has_pep695(source) == bool(newer_syntax._PEP695.search(source))


@pytest.mark.parametrize("line", [0, 1, 2, 3, 4, 9])
def test_the_f_prefix_is_dropped_on_the_error_line_alone(line):
    source = 'a = f"{x}"\nb = rf\'{y}\' + F"z"\nc = "f"\n'
    lines = source.split("\n")
    expected = source
    if 0 < line <= len(lines):
        lines[line - 1] = newer_syntax._F_PREFIX.sub(r"\1\2", lines[line - 1])
        expected = "\n".join(lines)
    assert newer_syntax._without_f_prefix(source, line) == expected


def test_the_cache_folder_keeps_the_most_recently_used_indexes_only(project, monkeypatch):
    import os

    from faultlib.detect.data.leakage import repocache

    monkeypatch.setattr(repocache, "MAX_KEPT_FILES", 3)
    folder = project.parent / "cache" / "leakage"
    for n in range(5):  # five edits: five keys
        repocache.store_index(f"k{n}", {"n": n})
        os.utime(folder / f"repofiles-k{n}.json", ns=(n * 10**9, n * 10**9))  # written a second apart
    assert [p.name for p in cached_files(project)] == ["repofiles-k2.json", "repofiles-k3.json", "repofiles-k4.json"]
    assert repocache.load_index("k2")["n"] == 2  # a hit: used now, so the next write removes k3 instead
    repocache.store_index("k5", {"n": 5})
    assert [p.name for p in cached_files(project)] == ["repofiles-k2.json", "repofiles-k4.json", "repofiles-k5.json"]


def test_the_cache_folder_is_bounded_in_bytes_and_leaves_links_alone(tmp_path):
    import os

    from faultlib.cache import prune

    for n in range(4):
        (tmp_path / f"repofiles-{n}.json").write_text("x" * 100)
        os.utime(tmp_path / f"repofiles-{n}.json", ns=(n * 10**9, n * 10**9))
    outside = tmp_path / "elsewhere.json"
    outside.write_text("kept")
    (tmp_path / "repofiles-link.json").symlink_to(outside)
    prune(tmp_path, "repofiles-", max_files=10, max_bytes=250)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.json", "repofiles-2.json", "repofiles-3.json",
                                                         "repofiles-link.json"]
    prune(tmp_path / "missing", "repofiles-", max_files=1, max_bytes=1)  # no folder: nothing to do, no error
