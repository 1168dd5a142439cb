"""Inference runtimes that run a converted model in the calling thread: CTranslate2 (``ctranslate2``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
libraries built on it, such as faster-whisper, are in :mod:`faultlib.detect.serving.blocking.libraries.speech`).
Building a ``Translator``/``Generator``/``Encoder``/``Whisper`` loads the converted model from its folder onto the
device; their batch methods (``translate_batch``, ``generate_batch``, ``score_batch``, ``forward_batch``, Whisper's
``generate``/``detect_language``/``encode``/``align``) run the model and return when it is done, in the calling
thread (``asynchronous=True`` is not followed: a finding there is read by its line). Each entry names the
documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

CT2 = "https://opennmt.net/CTranslate2/python/ctranslate2.{}.html (the constructor loads the model; {} run it)"

CTRANSLATE2 = {
    "Translator": ("translate_batch", "translate_iterable", "translate_file", "score_batch", "score_iterable",
                   "score_file", "generate_tokens"),
    "Generator": ("generate_batch", "generate_iterable", "generate_tokens", "score_batch", "score_iterable",
                  "forward_batch", "async_generate_tokens"),
    "Encoder": ("forward_batch",),
    "models.Whisper": ("generate", "detect_language", "encode", "align"),
}

RUNTIMES = Vocabulary(
    calls={},
    families=tuple(
        Family((f"ctranslate2.{name}",), {"__init__": F, **{m: C for m in methods if not m.startswith("async")}},
               CT2.format(name, "/".join(methods[:2])))
        for name, methods in CTRANSLATE2.items()),
    returns={},
)
