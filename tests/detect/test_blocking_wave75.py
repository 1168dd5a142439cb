"""check blocking: the kinds held-out wave 75 (issue 17; speech, TTS and translation services) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- a package re-exporting a helper under its own submodule's name ----------------------------------------------------

_FETCHER = """
    from huggingface_hub import snapshot_download


    def fetch_weights(repo: str) -> str:
        return snapshot_download(repo)
"""


_STARTUP = """
    from svc.tools import fetch_weights


    async def startup(app):
        app.state.folder = fetch_weights("acme/tiny-tagger")
"""


def _package(init: str, app: str = _STARTUP) -> dict[str, str]:
    """A package ``svc`` whose ``tools/__init__.py`` is ``init``, with the blocking helper in ``tools/fetch_weights.py``
    and ``app.py`` importing ``fetch_weights`` from ``svc.tools``."""
    return {"__init__.py": "", "tools/__init__.py": init, "tools/fetch_weights.py": _FETCHER, "app.py": app}


_DOWNLOAD = ("tools/fetch_weights.py", "blocking_http", "return snapshot_download(repo)")


def test_a_helper_re_exported_under_its_submodules_name_is_followed(tmp_path):
    found = flagged_package(tmp_path, _package(
        "from svc.tools.fetch_weights import fetch_weights as fetch_weights\n"))
    assert _DOWNLOAD in found


def test_a_relative_re_export_under_the_submodules_name_is_followed(tmp_path):
    found = flagged_package(tmp_path, _package("from .fetch_weights import fetch_weights\n"))
    assert _DOWNLOAD in found


def test_the_re_exported_helper_offloaded_is_silent(tmp_path):
    found = flagged_package(tmp_path, _package(
        "from svc.tools.fetch_weights import fetch_weights as fetch_weights\n", """
            import asyncio

            from svc.tools import fetch_weights


            async def startup(app):
                app.state.folder = await asyncio.to_thread(fetch_weights, "acme/tiny-tagger")
        """))
    assert not found


def test_a_package_binding_its_own_function_under_the_name_keeps_it(tmp_path):
    found = flagged_package(tmp_path, _package("""
        def fetch_weights(repo: str) -> str:
            return repo.lower()
    """))
    assert not found


# -- model loaders and Hub helpers of libraries ------------------------------------------------------------------------

def test_a_hub_login_in_async_startup_blocks(tmp_path):
    found = flagged(tmp_path, """
        from huggingface_hub import login


        async def on_startup(token):
            login(token=token, add_to_git_credential=False)
    """)
    assert ("blocking_http", "login(token=token, add_to_git_credential=False)") in found


def test_a_hub_login_offloaded_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from huggingface_hub import login


        async def on_startup(token):
            await asyncio.to_thread(login, token=token)
    """)
    assert not found


def test_a_tensorrt_llm_engine_built_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        class Speaker:
            def __init__(self, engine_dir):
                from tensorrt_llm import LLM

                self.llm = LLM(model=engine_dir, tokenizer="acme/voice-3b")


        async def lifespan(app):
            app.state.speaker = Speaker("/engines/voice")
    """)
    assert ("blocking_file_io", 'self.llm = LLM(model=engine_dir, tokenizer="acme/voice-3b")') in found


def test_the_tensorrt_llm_async_generation_is_silent(tmp_path):
    found = flagged(tmp_path, """
        async def speak(llm, prompt, params):
            async for part in llm.generate_async(prompt, params, streaming=True):
                yield part
    """)
    assert not found


def test_the_native_fasttext_model_load_blocks(tmp_path):
    found = flagged(tmp_path, """
        from fasttext_pybind import fasttext


        async def load_detector(path):
            model = fasttext()
            model.loadModel(path)
            return model
    """)
    assert ("blocking_file_io", "model.loadModel(path)") in found


def test_building_the_empty_native_fasttext_object_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from fasttext_pybind import fasttext


        async def empty_detector():
            return fasttext()
    """)
    assert not found


def test_moshi_hub_files_and_checkpoint_loaders_block(tmp_path):
    found = flagged(tmp_path, """
        async def load_voice(repo):
            from moshi.models.loaders import CheckpointInfo, hf_get
            from moshi.models.tts import TTSModel

            config = hf_get("config.json", repo)
            info = CheckpointInfo.from_hf_repo(repo)
            return config, TTSModel.from_checkpoint_info(info, device="cpu")
    """)
    assert ("blocking_http", 'config = hf_get("config.json", repo)') in found
    assert ("blocking_http", "info = CheckpointInfo.from_hf_repo(repo)") in found
    assert ("blocking_file_io", 'return config, TTSModel.from_checkpoint_info(info, device="cpu")') in found


def test_moshi_loading_offloaded_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio


        def _load(repo):
            from moshi.models.loaders import CheckpointInfo
            from moshi.models.tts import TTSModel

            return TTSModel.from_checkpoint_info(CheckpointInfo.from_hf_repo(repo))


        async def load_voice(repo):
            return await asyncio.to_thread(_load, repo)
    """)
    assert not found


def test_a_library_models_weight_loader_blocks(tmp_path):
    found = flagged(tmp_path, """
        from moshi_mlx import models


        async def build(config, weights):
            lm = models.Lm(config)
            lm.load_pytorch_weights(weights, config, strict=True)
            return lm
    """)
    assert ("blocking_file_io", "lm.load_pytorch_weights(weights, config, strict=True)") in found


def test_an_own_class_weight_setter_is_silent(tmp_path):
    found = flagged(tmp_path, """
        class Mixer:
            def __init__(self):
                self.gains = []

            def load_weights(self, values):
                self.gains = [float(v) for v in values]


        async def retune(mixer: Mixer, values):
            mixer.load_weights(values)
    """)
    assert not found


def test_a_hub_named_loader_of_a_library_class_blocks(tmp_path):
    found = flagged(tmp_path, """
        from megatron.bridge import AutoBridge


        async def convert(path):
            return AutoBridge.from_hf_pretrained(path)
    """)
    assert ("blocking_http", "return AutoBridge.from_hf_pretrained(path)") in found


# -- pydub segments joined with operators stay segments ----------------------------------------------------------------

def test_segments_joined_with_plus_are_exported_through_ffmpeg(tmp_path):
    found = flagged(tmp_path, """
        from pydub import AudioSegment


        async def join(intro_path, body_path, target):
            joined = AudioSegment.from_file(intro_path) + AudioSegment.from_file(body_path)
            joined.export(target, format="mp3")
    """)
    assert ("blocking_subprocess", 'joined.export(target, format="mp3")') in found


def test_a_pause_added_to_an_unknown_segment_keeps_the_segment_type(tmp_path):
    found = flagged(tmp_path, """
        from pydub import AudioSegment


        async def pad(parts, target):
            track = parts[0]
            track = track + AudioSegment.silent(duration=300)
            track.export(target, format="ogg")
    """)
    assert ("blocking_subprocess", 'track.export(target, format="ogg")') in found


def test_summed_and_sliced_segments_are_exported_through_ffmpeg(tmp_path):
    found = flagged(tmp_path, """
        from pydub import AudioSegment


        async def medley(paths, target):
            clips = [AudioSegment.from_file(p)[:5000] for p in paths]
            mix = sum(clips)
            mix.fade_out(500).export(target, format="mp3")
    """)
    assert ("blocking_subprocess", 'mix.fade_out(500).export(target, format="mp3")') in found


def test_joined_segments_written_as_wav_into_memory_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import io

        from pydub import AudioSegment


        async def join(first: AudioSegment, second: AudioSegment):
            buffer = io.BytesIO()
            (first + second).export(buffer, format="wav")
            return buffer.getvalue()
    """)
    assert not found


# -- a submodule of a from_pretrained-loaded model run in an asyncio worker --------------------------------------------

_CODEC = """
    import asyncio

    import torch
    from vocodec import Codec


    class Decoder:
        def __init__(self):
            self.net = Codec.from_pretrained("acme/vocodec-24khz").eval()

        def decode(self, codes):
            with torch.inference_mode():
                return self.net.decoder(codes)

        def place(self, device):
            self.net.to(device)
            return self.net.sample_rate


    class Batcher:
        def __init__(self):
            self.decoder = Decoder()
            self.jobs = asyncio.Queue()
"""


def test_a_loaded_models_submodule_called_in_an_async_worker_blocks(tmp_path):
    found = flagged(tmp_path, _CODEC + """
        async def worker(batcher: Batcher):
            while True:
                codes, done = await batcher.jobs.get()
                done.set_result(batcher.decoder.decode(codes))
    """)
    assert ("blocking_cpu", "return self.net.decoder(codes)") in found


def test_a_loaded_models_housekeeping_and_an_offloaded_decode_are_silent(tmp_path):
    found = flagged(tmp_path, _CODEC + """
        async def worker(batcher: Batcher):
            batcher.decoder.place("cpu")
            while True:
                codes, done = await batcher.jobs.get()
                done.set_result(await asyncio.to_thread(batcher.decoder.decode, codes))
    """)
    assert not found
