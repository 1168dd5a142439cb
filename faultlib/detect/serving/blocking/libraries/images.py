"""Images that image-generation pipelines return: a diffusers pipeline's output holds PIL images.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; running the
pipeline is in :mod:`faultlib.detect.serving.blocking.libraries.models`, ``PIL.Image.Image.save`` in
:mod:`faultlib.detect.serving.blocking.sdks`). Calling a pipeline returns a ``BaseOutput`` (``ImagePipelineOutput``,
``StableDiffusionPipelineOutput``...) whose ``images`` -- also reached as ``output["images"]``, ``output[0]``, or
the old ``output["sample"]`` -- is a list of ``PIL.Image.Image`` (the default ``output_type="pil"``): so
``pipe(prompt).images[0].save(path)`` encodes and writes the image where it is called. Only the ``returns`` half
lives here (what the call returns); the attribute and item types of the output are
:data:`faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`. Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

OUTPUT = "diffusers.utils.BaseOutput"
"""The type name this table gives a pipeline's output (its ``images`` and items are typed in ``ATTRIBUTE_TYPES``)."""

PIPELINES = (  # https://huggingface.co/docs/diffusers/api/pipelines/overview (each returns a BaseOutput of images)
    "DiffusionPipeline", "StableDiffusionPipeline", "StableDiffusionImg2ImgPipeline",
    "StableDiffusionInpaintPipeline", "StableDiffusionXLPipeline", "StableDiffusionXLImg2ImgPipeline",
    "StableDiffusionXLInpaintPipeline", "StableDiffusionControlNetPipeline", "StableDiffusionXLControlNetPipeline",
    "StableDiffusionUpscalePipeline", "StableDiffusionInstructPix2PixPipeline", "StableDiffusion3Pipeline",
    "AutoPipelineForText2Image", "AutoPipelineForImage2Image", "AutoPipelineForInpainting", "FluxPipeline",
    "KandinskyV22Pipeline", "PixArtAlphaPipeline", "PixArtSigmaPipeline", "LatentConsistencyModelPipeline",
    "DDPMPipeline", "DDIMPipeline")

IMAGES = Vocabulary(
    calls={},
    families=(),
    returns={f"diffusers.{name}.__call__": OUTPUT for name in PIPELINES},
)
