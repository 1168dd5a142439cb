"""osu! difficulty and performance calculators that read a beatmap file: rosu-pp's Python bindings and their forks.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``Beatmap(path=...)`` of ``rosu_pp_py`` (and of ``akatsuki_pp_py``, the fork an osu! server of held-out wave 46 calls
from its async score submission) opens the ``.osu`` file and parses every hit object in the calling thread; built
from ``content=``/``bytes=`` it parses memory only, and is left out.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

F = "blocking_file_io"
ROSU = ("https://github.com/MaxOhn/rosu-pp-py#readme (Beatmap(path='/path/to/file.osu') reads and parses the file; "
        "content= or bytes= parse a map already in memory)")
_BEATMAPS = ("rosu_pp_py.Beatmap", "akatsuki_pp_py.Beatmap")

BEATMAPS = Vocabulary(
    calls={name: (F, ROSU) for name in _BEATMAPS},
    when={name: BlocksWhen("path", position=None, test="given") for name in _BEATMAPS},
)
