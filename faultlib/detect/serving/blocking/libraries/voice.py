"""Audio files, sound devices and the voice pipelines around speech models: writing a wav, waiting for a recording
or a playback, diarization, and the TTS/ASR packages that wrap a model in one call.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); the
speech models themselves (Coqui, XTTS, sherpa-onnx, FunASR, Kokoro...) are in ``libraries/speech.py``. None of
these has an async API: each call encodes and writes the file, waits for the device, or loads and runs the model in
the calling thread. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F, W = "blocking_cpu", "blocking_file_io", "blocking_sleep"

_WRITERS = {  # encode the samples and write the audio file
    "soundfile.write": "https://python-soundfile.readthedocs.io/en/latest/#soundfile.write",
    "scipy.io.wavfile.write": "https://docs.scipy.org/doc/scipy/reference/generated/scipy.io.wavfile.write.html",
    "torchaudio.save": "https://pytorch.org/audio/stable/generated/torchaudio.save.html",
}
SOUNDDEVICE = ("https://python-sounddevice.readthedocs.io/en/latest/api/convenience-functions.html#sounddevice.wait "
               "(waits until play()/rec()/playrec() is finished: the length of the audio)")
PYANNOTE = ("https://github.com/pyannote/pyannote-audio#tldr (Pipeline.from_pretrained loads the models; calling the "
            "pipeline on a file runs segmentation, embedding and clustering in the calling thread)")
MELO = "https://github.com/myshell-ai/MeloTTS/blob/main/docs/install.md#python-api (TTS(...) loads; tts_to_file runs)"
BARK = ("https://github.com/suno-ai/bark#-usage-in-python (preload_models downloads and loads the three models; "
        "generate_audio runs them)")
WHISPER_CPP = ("https://github.com/absadiki/pywhispercpp#usage (Model(...) loads or downloads the ggml model; "
               "transcribe runs it)")

_MELO = ("melo.api.TTS",)
_PYANNOTE = ("pyannote.audio.Pipeline", "pyannote.audio.core.pipeline.Pipeline",
             *(f"pyannote.audio.pipelines.{name}" for name in (  # the library's own Pipeline subclasses
                 "VoiceActivityDetection", "SpeakerDiarization", "OverlappedSpeechDetection", "Resegmentation",
                 "SpeakerSegmentation")))
_WHISPER_CPP = ("pywhispercpp.model.Model",)

VOICE = Vocabulary(
    calls={
        **{name: (F, source) for name, source in _WRITERS.items()},
        "sounddevice.wait": (W, SOUNDDEVICE),
        **{name: (F, MELO) for name in _MELO},
        **{f"bark.{m}preload_models": (F, BARK) for m in ("", "generation.")},
        **{f"bark.{m}generate_audio": (C, BARK) for m in ("", "api.")},
        **{name: (F, WHISPER_CPP) for name in _WHISPER_CPP},
    },
    families=(
        Family(_PYANNOTE, {"__call__": C, "apply": C}, PYANNOTE),
        Family(_MELO, {"tts_to_file": C}, MELO),
        Family(_WHISPER_CPP, {"transcribe": C}, WHISPER_CPP),
    ),
    returns={name: name for name in (*_MELO, *_WHISPER_CPP)} | {
        f"{p}.from_pretrained": p for p in _PYANNOTE},
)
