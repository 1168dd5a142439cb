"""Pillow's ``Image.filter``: a convolution or rank filter (blur, sharpen, median...) over a whole image.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Pillow's
``resize``/``thumbnail``/``rotate`` are in :mod:`faultlib.detect.serving.blocking.sdks`, ``ImageEnhance`` in
:mod:`~faultlib.detect.serving.blocking.libraries.imageenhance`). ``img.filter(ImageFilter.GaussianBlur(radius))``
computes every output pixel from its neighbourhood in the calling thread (a thumbnail or "now playing" card a chat
bot draws per command, held-out wave 50). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

FILTER = ("https://pillow.readthedocs.io/en/stable/reference/Image.html#PIL.Image.Image.filter (\"Filters this image "
          "using the given filter\"; the kernels of https://pillow.readthedocs.io/en/stable/reference/ImageFilter.html "
          "-- GaussianBlur, BoxBlur, MedianFilter... -- each read the neighbourhood of every pixel)")

IMAGE_FILTERS = Vocabulary(families=(Family(("PIL.Image.Image",), {"filter": "blocking_cpu"}, FILTER),))
