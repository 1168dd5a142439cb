"""Local speech engines a voice service runs in-process: piper's text-to-speech voices and vosk's recognizer.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
model libraries -- Coqui, XTTS, sherpa-onnx, faster-whisper... -- are in ``speech.py`` and ``voice.py``). Neither
library has an async API: loading a voice or a model reads it from disk and builds the runtime session, and
synthesis or recognition runs the model in the calling thread. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

PIPER = ("https://github.com/OHF-Voice/piper1-gpl/blob/main/docs/API_PYTHON.md (PiperVoice.load reads the .onnx voice "
         "and its JSON config and builds an onnxruntime session; synthesize_wav runs the voice over the whole text "
         "and writes the wav; synthesize yields the audio of each sentence as it is iterated, running the model)")
VOSK = ("https://github.com/alphacep/vosk-api/blob/master/python/vosk/__init__.py (Model(path) loads the Kaldi model "
        "files through vosk_model_new; KaldiRecognizer.AcceptWaveform decodes the audio, Result/FinalResult finish "
        "the utterance's decoding, each a C call in the calling thread; example: python/example/test_simple.py)")

VOSK_BATCH = ("https://github.com/alphacep/vosk-api/blob/master/python/vosk/__init__.py (BatchModel(path) loads the "
              "model through vosk_batch_model_new, as Model does; BatchRecognizer.AcceptWaveform only queues the chunk "
              "for the GPU batch, whose results are polled with GetPendingChunks: left out; example: "
              "python/example/test_gpu_batch.py)")

_PIPER = ("piper.PiperVoice", "piper.voice.PiperVoice")
_VOSK_RECOGNIZER = ("vosk.KaldiRecognizer",)

SPEECH_ENGINES = Vocabulary(
    calls={
        **{f"{p}.load": (F, PIPER) for p in _PIPER},
        "vosk.Model": (F, VOSK),
        "vosk.SpkModel": (F, VOSK),
        "vosk.BatchModel": (F, VOSK_BATCH),
    },
    families=(
        Family(_PIPER, {m: C for m in ("synthesize", "synthesize_wav", "synthesize_stream_raw",
                                       "phoneme_ids_to_audio")}, PIPER),
        Family(_VOSK_RECOGNIZER, {m: C for m in ("AcceptWaveform", "Result", "FinalResult")}, VOSK),
    ),
    returns={**{f"{p}.load": p for p in _PIPER}, "vosk.Model": "vosk.Model",
             "vosk.KaldiRecognizer": "vosk.KaldiRecognizer"},
)
