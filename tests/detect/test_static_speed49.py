"""Stop 49's speed work on ``check blocking`` with the installed libraries followed: the same answers, cheaper.

:func:`~faultlib.detect.serving.blocking.distribution_tops.top_level_names` reads a distribution's ``RECORD`` rows
itself instead of building a path object per installed file (``Distribution.files``): these tests hold its names to
the expression it replaced on made-up distributions in a temporary directory (paths with empty and ``.`` parts, an
absolute path, a file whose name only contains ``.py``), its fallbacks (``top_level.txt`` first; a row ``files``
would refuse, and a distribution without ``RECORD``, answered by ``files`` itself), and the installed library lookup
that uses it to the distribution it names. :func:`~faultlib.detect.serving.blocking.module_annotations.returned_types`
(the vocabulary's returned types as a set, memoised) keeps ``names_a_module``'s answers.
"""

from __future__ import annotations

import textwrap
from importlib import metadata

import pytest

from faultlib.detect.serving.blocking import analyze_sources
from faultlib.detect.serving.blocking.distribution_tops import LIMIT, top_level_names
from faultlib.detect.serving.blocking.installed import Installed
from faultlib.detect.serving.blocking.module_annotations import (
    names_a_module,
    returned_types,
)
from faultlib.detect.serving.blocking.vocab import vocabulary


def _dist(site, name: str, files: dict[str, str]):
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    for file, text in files.items():
        (info / file).write_text(text)
    return next(d for d in metadata.distributions(path=[str(site)]) if d.metadata["Name"] == name)


def _by_files(dist) -> set[str]:
    """What the installed lookup computed before stop 49 (``Distribution.files``, a path object per row)."""
    return {str(f).split("/")[0].removesuffix(".py") for f in (dist.files or [])[:LIMIT] if str(f).endswith(".py")}


RECORD = textwrap.dedent("""\
    weather_feed/__init__.py,sha256=abc,10
    weather_feed/fetch.py,,
    ./single_module.py,sha256=def,3
    .//doubled//inner.py
    /abs/outside.py,,
    trailing.py/,,
    dotted.py/.,,
    weather_feed/__pycache__/fetch.cpython-311.pyc,,
    data.pyx,,
    notes.py.txt,,
    ../../bin/tool.py,,
    "quoted, name.py",,
    weather_feed-1.0.dist-info/RECORD,,
""")


def test_record_rows_give_the_names_files_gave(tmp_path):
    dist = _dist(tmp_path, "weather-feed", {"RECORD": RECORD})
    names = top_level_names(dist)
    assert names == _by_files(dist)
    assert {"weather_feed", "single_module", "doubled", "", "trailing", "dotted", "..", "quoted, name"} == names


def test_only_the_first_files_are_read(tmp_path):
    rows = "".join(f"pkg_{i}/mod.py,,\n" for i in range(LIMIT + 5))
    dist = _dist(tmp_path, "many", {"RECORD": rows})
    assert top_level_names(dist) == _by_files(dist)
    assert f"pkg_{LIMIT}" not in top_level_names(dist) and f"pkg_{LIMIT - 1}" in top_level_names(dist)


def test_top_level_txt_is_read_first(tmp_path):
    dist = _dist(tmp_path, "declared", {"top_level.txt": "alpha\nbeta\n", "RECORD": "gamma/__init__.py,,\n"})
    assert top_level_names(dist) == ["alpha", "beta"]


def test_a_row_files_refuses_is_refused_the_same_way(tmp_path):
    dist = _dist(tmp_path, "broken", {"RECORD": "ok/__init__.py,,\nbad.py,a,b,c\n"})
    with pytest.raises(TypeError):
        _by_files(dist)
    with pytest.raises(TypeError):
        top_level_names(dist)


def test_no_record_is_answered_by_files(tmp_path):
    dist = _dist(tmp_path, "bare", {})
    assert top_level_names(dist) == _by_files(dist) == set()


def test_the_lookup_names_the_distribution_from_its_record(tmp_path):
    _dist(tmp_path, "weather-feed", {"RECORD": "weather_feed/__init__.py,,\n"})
    assert Installed([tmp_path])._distribution("weather_feed", tmp_path) == ("weather-feed", "1.0")
    assert Installed([tmp_path])._distribution("other", tmp_path) == ("other", "unknown")


def test_a_library_found_by_its_record_is_followed(tmp_path):
    site = tmp_path / "site"
    _dist(site, "weather-feed", {"RECORD": "weather_feed/__init__.py,,\n"})
    (site / "weather_feed").mkdir()
    (site / "weather_feed" / "__init__.py").write_text("import time\n\n\ndef fetch():\n    time.sleep(1)\n")
    service = "import weather_feed\n\n\nasync def handler():\n    weather_feed.fetch()\n\n\nasync def fine():\n    pass\n"
    report = analyze_sources([("app.py", ["app"], service)], installed=Installed([site]))
    assert [(f.kind, f.location["line"]) for f in report.findings] == [("blocking_sleep", 5)]
    assert [(lib["name"], lib["version"]) for lib in report.libraries] == [("weather-feed", "1.0")]


def test_returned_types_keep_what_names_a_module():
    VOCAB = vocabulary()
    returned = returned_types(VOCAB)
    assert returned == frozenset(VOCAB.returns.values()) and returned_types(VOCAB) is returned
    lower = sorted(t for t in returned if t.rpartition(".")[2][:1].islower())
    assert lower and not any(names_a_module(VOCAB, t) for t in lower)  # socket.socket: a type an entry returns
    assert names_a_module(VOCAB, "selenium.webdriver")
