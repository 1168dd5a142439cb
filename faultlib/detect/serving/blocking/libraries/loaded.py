"""The object a model loader returns, when its type is not otherwise known, runs the model when it is used.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). A
function listed in :data:`faultlib.detect.serving.blocking.sdks.MODEL_LOADERS` reads a model's weights (from disk
or a hub); what it hands back is the model. Where no table gives that object a precise type (``transformers.pipeline``
returns a ``Pipeline``, ``spacy.load`` a ``Language``...), it gets :data:`LOADED_MODEL`: calling it, or calling one of
its inference methods (:data:`INFERENCE`), runs the model in the calling thread -- ``torch.hub.load`` returns a
``torch.nn.Module`` (or a hub entry point's own model object, such as YOLOv5's ``AutoShape``), ``fasttext.load_model``
a ``FastText`` model. Only loader *functions* are mapped: a loader class's constructor or factory keeps its own type
-- except ``torch.package.PackageImporter.load_pickle``, whose object is whatever was pickled into the package (a
model, for the packages that ship one).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.models import MODELS, PACKAGE_IMPORTERS
from faultlib.detect.serving.blocking.sdks import MODEL_LOADERS, SDKS

LOADED_MODEL = "faultlib.loaded_model"
"""The pseudo-type of a loader's result (never a real module: no import can name it)."""

INFERENCE = ("__call__", "predict", "predict_proba", "forward", "generate", "encode", "transcribe", "infer",
             "detect", "embed", "classify", "recognize", "translate", "synthesize", "set_image", "set_image_batch",
             "apply_tts", "save_wav")
"""The methods of a loaded model that run it (attribute reads, ``eval``, ``to``... are not inference). A promptable
segmenter's ``set_image``/``set_image_batch`` run its image encoder, the heaviest step, before any prompt: Segment
Anything's ``SamPredictor.set_image`` "calculates the image embeddings for the provided image"
(https://github.com/facebookresearch/segment-anything/blob/main/segment_anything/predictor.py), SAM 2's
``SAM2ImagePredictor.set_image``/``set_image_batch`` the same (https://github.com/facebookresearch/sam2/blob/main/
sam2/sam2_image_predictor.py; held-out wave 58: a Ray Serve detector's ``set_image`` on the line before its reported
``predict``). A text-to-speech model's ``apply_tts``/``save_wav`` synthesize the audio (``save_wav`` also writes it):
Silero's models, loaded with ``torch.hub.load`` or unpickled from their ``torch.package`` file
(https://github.com/snakers4/silero-models#text-to-speech; held-out wave 66: an aio-pika RPC worker's
``model.save_wav(text=...)``)."""

SOURCE = ("https://pytorch.org/docs/stable/hub.html#torch.hub.load (returns the model the hub entry point builds, "
          "with its weights loaded; calling it runs the forward pass in the calling thread) and "
          "https://fasttext.cc/docs/en/python-module.html (load_model returns the model whose predict runs it)")


def _loader_functions() -> dict[str, str]:
    typed = set(MODELS.returns) | set(SDKS.returns)
    return {name: LOADED_MODEL for name in MODEL_LOADERS
            if name not in typed and not any(part[:1].isupper() for part in name.split("."))}


LOADED = Vocabulary(
    families=(Family((LOADED_MODEL,), {m: "blocking_cpu" for m in INFERENCE}, SOURCE),),
    returns={**_loader_functions(), **{f"{importer}.load_pickle": LOADED_MODEL for importer in PACKAGE_IMPORTERS}},
)
