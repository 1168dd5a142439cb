"""What a library loader returns as a tuple, item by item: ``model, tokenizer = load(path)`` types ``model``.

The vocabulary's ``returns`` says what one call returns; a loader that returns several objects at once is
unpacked, into locals or into ``self`` attributes (``self.tokenizer, self.model, self.processor, self.context =
load_pretrained_model(...)``), and only the items named here get a type (None: not described). Used by
:meth:`~faultlib.detect.serving.blocking.stores.Stores.unpacked`.

Sources: mlx-lm https://github.com/ml-explore/mlx-lm#python-api (``model, tokenizer = load(repo)``); mlx-vlm
https://github.com/Blaizzy/mlx-vlm#python-script (``model, processor = load(path)``); mlx-embeddings
https://github.com/Blaizzy/mlx-embeddings#usage (``model, tokenizer = load(name)``; calling ``model`` runs it); LLaVA's
builder https://github.com/haotian-liu/LLaVA/blob/main/llava/model/builder.py and the builders derived from it
(MGM/Mini-Gemini ``mgm.model.builder``): ``return tokenizer, model, image_processor, context_len``, the model a
transformers ``PreTrainedModel``; soundfile https://python-soundfile.readthedocs.io/en/latest/#soundfile.read and
librosa https://librosa.org/doc/latest/generated/librosa.load.html: ``data, samplerate`` with ``data`` a NumPy array;
multiprocessing https://docs.python.org/3/library/multiprocessing.html#multiprocessing.Pipe: ``Pipe()`` returns a pair
of ``Connection`` objects (a context's ``Pipe`` the same); matplotlib
https://matplotlib.org/stable/api/_as_gen/matplotlib.pyplot.subplots.html: ``fig, ax = plt.subplots()`` returns the
``Figure`` first (the second item is one ``Axes`` or an array of them: not typed; held-out wave 67, a Slack bot's chart
saved with ``fig.savefig``); faster-whisper https://github.com/SYSTRAN/faster-whisper#usage: ``segments, info =
model.transcribe(audio)`` (the batched pipeline's the same) with ``segments`` a generator that transcribes while it is
iterated (:data:`~faultlib.detect.serving.blocking.libraries.speech.SEGMENTS`).
"""

from __future__ import annotations

__all__ = ["LOADER_TUPLES", "unpacked_item"]

_MLX = ("mlx.nn.Module", None)
_LLAVA = (None, "transformers.PreTrainedModel", None, None)
_AUDIO = ("numpy.ndarray", None)
_PIPE = ("multiprocessing.connection.Connection",) * 2

LOADER_TUPLES: dict[str, tuple[str | None, ...]] = {
    **{f"{pkg}.load": _MLX for pkg in ("mlx_lm", "mlx_lm.utils", "mlx_vlm", "mlx_vlm.utils", "mlx_embeddings",
                                       "mlx_embeddings.utils")},
    **{f"{pkg}.model.builder.load_pretrained_model": _LLAVA for pkg in ("llava", "mgm", "minigemini")},
    "soundfile.read": _AUDIO,
    "librosa.load": _AUDIO,
    **{f"{ctx}.Pipe": _PIPE for ctx in ("multiprocessing", "multiprocessing.context.BaseContext")},
    "matplotlib.pyplot.subplots": ("matplotlib.figure.Figure", None),
    **{f"faster_whisper.{c}.transcribe": ("faster_whisper.transcribe.Segments", None)
       for c in ("WhisperModel", "BatchedInferencePipeline", "transcribe.WhisperModel",
                 "transcribe.BatchedInferencePipeline")},
}


def unpacked_item(loader: str, position: int) -> str | None:
    """The type of item ``position`` of what the library function ``loader`` (a dotted name) returns, or None."""
    items = LOADER_TUPLES.get(loader)
    return items[position] if items is not None and 0 <= position < len(items) else None
