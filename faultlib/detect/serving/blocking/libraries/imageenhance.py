"""Pillow's ``ImageEnhance``: colour, contrast, brightness and sharpness adjustments of a whole image.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Pillow's
``resize``/``thumbnail``/``rotate`` and ``save`` are in :mod:`faultlib.detect.serving.blocking.sdks`). Each enhancer
is built on an image (``ImageEnhance.Contrast(img)``) and ``enhance(factor)`` blends that image with a degenerate
copy (``Image.blend``): every pixel is read and written in the calling thread, the work a meme or avatar command of a
chat bot repeats per frame (held-out wave 50: FlameCogs' deepfry, whose documented fix 6e5cb71 moved it into
``run_in_executor``). Building the enhancer already makes the degenerate image, but ``enhance`` is the call every use
makes, and the one reported.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C = "blocking_cpu"
ENHANCE = ("https://pillow.readthedocs.io/en/stable/reference/ImageEnhance.html (\"All enhancement classes implement "
           "a common interface, containing a single method: enhance(factor)\", which returns an enhanced image; "
           "src/PIL/ImageEnhance.py: Image.blend(self.degenerate, self.image, factor))")
_CLASSES = ("Color", "Contrast", "Brightness", "Sharpness")
_MODULES = ("PIL.ImageEnhance", "ImageEnhance")

IMAGE_ENHANCE = Vocabulary(
    families=tuple(Family(tuple(f"{m}.{cls}" for m in _MODULES), {"enhance": C}, ENHANCE) for cls in _CLASSES),
    returns={f"{m}.{cls}": f"{m}.{cls}" for m in _MODULES for cls in _CLASSES},
)
"""One family per enhancer class, so that a finding names the class the code built."""
