"""Image preprocessing before a model call: the helpers that resample a whole picture, and Keras' image-file loader.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Pillow's
own ``Image.resize``/``thumbnail``/``rotate`` are in :mod:`faultlib.detect.serving.blocking.sdks`, ``Image.filter``
in :mod:`~faultlib.detect.serving.blocking.libraries.imagefilters`). A model service typically opens the upload
(``Image.open`` is lazy: "the actual image data is not read from the file until you try to process the data",
https://pillow.readthedocs.io/en/stable/reference/Image.html#PIL.Image.open), fits it to the model's input size and
only then offloads the forward pass; the fitting step decodes every pixel and resamples it in the calling thread,
the same work as the ``Image.resize`` the vocabulary already lists (held-out wave 63: a Sanic route's
``ImageOps.fit``, a Sanic route's ``torchvision.transforms.functional.resize`` of a lazily opened upload).

* Pillow's ``ImageOps`` helpers that resize: ``fit`` ("Returns a resized and cropped version of the image"),
  ``contain``, ``cover``, ``pad`` and ``scale`` (https://pillow.readthedocs.io/en/stable/reference/ImageOps.html;
  each calls ``Image.resize``). The helpers that only flip, mirror, crop or map colours are left out: they are
  cheap per pixel, and the house has never counted them as blockers.
* torchvision's functional transforms that resample: ``resize``, ``resized_crop``, ``rotate``, ``affine`` and
  ``perspective`` (https://pytorch.org/vision/stable/transforms.html#functional-transforms; on a PIL image they call
  Pillow's resampling, on a tensor an interpolation in the calling thread), in ``transforms.functional`` and
  ``transforms.v2.functional``.
* Keras' ``load_img`` ("Loads an image into PIL format": it opens the file named by its path, decodes it and resizes
  it to ``target_size``, https://keras.io/api/data_loading/image/#loadimg-function; ``keras.preprocessing.image``
  and TensorFlow's ``tf.keras`` re-export it): file I/O (over an ``io.BytesIO`` it only decodes: CPU work, the
  in-memory rule of :func:`~faultlib.detect.serving.blocking.sites.named_site`). It returns a PIL image.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

C = "blocking_cpu"
IMAGEOPS = ("https://pillow.readthedocs.io/en/stable/reference/ImageOps.html (fit/contain/cover/pad/scale return a "
            "resized copy: the lazily opened image is decoded and every pixel resampled in the calling thread)")
TORCHVISION = ("https://pytorch.org/vision/stable/transforms.html#functional-transforms (resize/resized_crop/rotate/"
               "affine/perspective resample the whole PIL image or tensor in the calling thread)")
LOAD_IMG = ("https://keras.io/api/data_loading/image/#loadimg-function (\"Loads an image into PIL format\": reads "
            "the file at the path, decodes it and resizes it to target_size)")

_IMAGEOPS = ("fit", "contain", "cover", "pad", "scale")
_TORCHVISION = ("resize", "resized_crop", "rotate", "affine", "perspective")
_TORCHVISION_MODULES = ("torchvision.transforms.functional", "torchvision.transforms.v2.functional")
_LOAD_IMG = ("keras.utils.load_img", "keras.preprocessing.image.load_img", "tensorflow.keras.utils.load_img",
             "tensorflow.keras.preprocessing.image.load_img", "tf_keras.utils.load_img",
             "tf_keras.preprocessing.image.load_img")

IMAGE_PREPROCESSING = Vocabulary(
    calls={
        **{f"PIL.ImageOps.{f}": (C, IMAGEOPS) for f in _IMAGEOPS},
        **{f"{m}.{f}": (C, TORCHVISION) for m in _TORCHVISION_MODULES for f in _TORCHVISION},
        **{name: ("blocking_file_io", LOAD_IMG) for name in _LOAD_IMG},
    },
    returns={name: "PIL.Image.Image" for name in _LOAD_IMG},
)
