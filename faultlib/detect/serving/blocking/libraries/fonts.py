"""Fonts loaded from disk: Pillow's ``ImageFont.truetype`` and ``ImageFont.load``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
the census of unseen async services (``benchmarks/blocking_census.py``: bots drawing captions and cards, 5 of 54
services). ``ImageFont.truetype(path, size)`` opens the font file and has FreeType parse it, on every call (Pillow
keeps no cache); ``ImageFont.load(path)`` reads a bitmap font file. ``ImageFont.load_default()`` builds its font from
data embedded in Pillow (no file) and is not named.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

PILLOW = "https://pillow.readthedocs.io/en/stable/reference/ImageFont.html#PIL.ImageFont."

FONTS = Vocabulary(calls={
    "PIL.ImageFont.truetype": ("blocking_file_io", PILLOW + "truetype (loads a TrueType or OpenType font from a file)"),
    "PIL.ImageFont.load": ("blocking_file_io", PILLOW + "load (loads a font from the given file)"),
})
