"""Local speech engines a voice service runs in-process: piper's text-to-speech voices, vosk's recognizer and the
grapheme-to-phoneme front ends of TTS models (phonemizer, g2p_en).

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
PHONEMIZER = ("https://bootphon.github.io/phonemizer/api_reference.html (phonemize(text, backend='espeak') builds the "
              "backend -- loading libespeak-ng, or a festival subprocess -- and phonemizes every line in the calling "
              "thread; a backend's phonemize the same; held-out wave 58: a TTS bot's text cleaner)")
G2P_EN = ("https://github.com/Kyubyong/g2p#usage (G2p() loads the CMU dictionary and the model's weights; calling it "
          "tags the sentence with nltk and predicts the unknown words with its neural network, in the calling thread)")

VOSK_BATCH = ("https://github.com/alphacep/vosk-api/blob/master/python/vosk/__init__.py (BatchModel(path) loads the "
              "model through vosk_batch_model_new, as Model does; BatchRecognizer.AcceptWaveform only queues the chunk "
              "for the GPU batch, whose results are polled with GetPendingChunks: left out; example: "
              "python/example/test_gpu_batch.py)")

_PIPER = ("piper.PiperVoice", "piper.voice.PiperVoice")
_VOSK_RECOGNIZER = ("vosk.KaldiRecognizer",)
_PHONEMIZE = ("phonemizer.phonemize", "phonemizer.phonemize.phonemize")
_PHONEMIZER_BACKENDS = tuple(f"phonemizer.backend.{b}" for b in ("EspeakBackend", "FestivalBackend",
                                                                 "SegmentsBackend", "EspeakMbrolaBackend"))

SPEECH_ENGINES = Vocabulary(
    calls={
        **{f"{p}.load": (F, PIPER) for p in _PIPER},
        "vosk.Model": (F, VOSK),
        "vosk.SpkModel": (F, VOSK),
        "vosk.BatchModel": (F, VOSK_BATCH),
        **{name: (C, PHONEMIZER) for name in _PHONEMIZE},
        "g2p_en.G2p": (F, G2P_EN),
    },
    families=(
        Family(_PIPER, {m: C for m in ("synthesize", "synthesize_wav", "synthesize_stream_raw",
                                       "phoneme_ids_to_audio")}, PIPER),
        Family(_VOSK_RECOGNIZER, {m: C for m in ("AcceptWaveform", "Result", "FinalResult")}, VOSK),
        Family(_PHONEMIZER_BACKENDS, {"phonemize": C}, PHONEMIZER),
        Family(("g2p_en.G2p",), {"__call__": C}, G2P_EN),
    ),
    returns={**{f"{p}.load": p for p in _PIPER}, "vosk.Model": "vosk.Model",
             "vosk.KaldiRecognizer": "vosk.KaldiRecognizer", "g2p_en.G2p": "g2p_en.G2p",
             **{name: name for name in _PHONEMIZER_BACKENDS}},
)
