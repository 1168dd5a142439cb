"""transformers' preprocessors: image processors, feature extractors and the multimodal processors that hold them.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; loading a
preprocessor with ``from_pretrained`` and the models are in :mod:`~faultlib.detect.serving.blocking.libraries.models`).
Calling an image processor resizes, rescales and normalises every image (and video frame) in NumPy or PIL in the
calling thread; calling a feature extractor computes the audio features (a log-mel spectrogram for Whisper) the same
way; a processor's call runs its image processor and feature extractor on the images, videos and audio it is given.
``AutoProcessor.from_pretrained`` returns the processor the checkpoint names, or only its tokenizer for a text-only
model: its call is image work when it is given ``images=`` (held-out wave 58: a Ray Serve detector's
``self.processor(images=pil_img, text=...)``), text work otherwise. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

C = "blocking_cpu"
HF = "https://huggingface.co/docs/transformers/main_classes/"

IMAGE_PROCESSOR = (HF + "image_processor (BaseImageProcessor.__call__ runs preprocess: resize, rescale, normalise and "
                   "convert every image to tensors)")
FEATURE_EXTRACTOR = (HF + "feature_extractor (SequenceFeatureExtractor.__call__ featurizes and pads the raw audio, "
                     "e.g. the log-mel spectrogram of WhisperFeatureExtractor)")
PROCESSOR = (HF + "processors (ProcessorMixin.__call__ hands the images, videos and audio to its image processor and "
             "feature extractor)")

_IMAGE_PROCESSORS = tuple(f"transformers.{m}{c}" for c in ("BaseImageProcessor", "ImageProcessingMixin",
                                                            "BaseImageProcessorFast", "BaseVideoProcessor")
                          for m in ("", "image_processing_utils.", "image_processing_base.",
                                    "image_processing_utils_fast.", "video_processing_utils."))
_FEATURE_EXTRACTORS = tuple(f"transformers.{m}{c}" for c in ("SequenceFeatureExtractor", "FeatureExtractionMixin")
                            for m in ("", "feature_extraction_sequence_utils.", "feature_extraction_utils."))
AUTO_PROCESSOR = ("https://huggingface.co/docs/transformers/model_doc/auto#transformers.AutoProcessor (\"instantiate "
                  "one of the processor classes of the library\" from the checkpoint, falling back to its tokenizer or "
                  "image processor) and " + PROCESSOR)
_AUTO = "transformers.AutoProcessor"
"""The type of what ``AutoProcessor.from_pretrained`` returns: a processor, or a tokenizer for a text-only model."""
_PROCESSORS = ("transformers.ProcessorMixin", "transformers.processing_utils.ProcessorMixin")

PROCESSORS = Vocabulary(
    when={f"{_AUTO}.__call__": BlocksWhen("images", test="given")},  # images=None or left out: text only
    families=(
        Family(_IMAGE_PROCESSORS, {"__call__": C, "preprocess": C}, IMAGE_PROCESSOR),
        Family(_FEATURE_EXTRACTORS, {"__call__": C}, FEATURE_EXTRACTOR),
        Family(_PROCESSORS, {"__call__": C}, PROCESSOR),
        Family((_AUTO,), {"__call__": C}, AUTO_PROCESSOR),
    ),
    returns={
        **{f"transformers.{a}.from_pretrained": "transformers.image_processing_utils.BaseImageProcessor"
           for a in ("AutoImageProcessor", "AutoVideoProcessor")},
        f"{_AUTO}.from_pretrained": _AUTO,
        "transformers.AutoFeatureExtractor.from_pretrained":
            "transformers.feature_extraction_sequence_utils.SequenceFeatureExtractor",
    },
)
