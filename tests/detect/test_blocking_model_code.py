"""check blocking: model work the vocabulary cannot name -- a Hugging Face model of an unnamed (remote-code)
class running its own methods or submodules, a TextIteratorStreamer iterated on the loop, a model class chosen
from a class-level dict of classes and constructed, an mflux model constructed. Each is found at its line; the
model's set-up methods, the async streamer and the offloaded iteration stay silent. Every example is written for
this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_remote_code_models_own_methods_run_it_and_its_setup_methods_do_not(tmp_path):
    found = flagged(tmp_path, """
        from transformers import AutoModelForCausalLM

        class Captioner:
            def __init__(self, repo):
                self.model = AutoModelForCausalLM.from_pretrained(repo, trust_remote_code=True).eval()

            async def caption(self, pictures):
                self.model.to("cuda")
                embeddings = self.model.get_input_embeddings()
                features = self.model.embed_pictures(pictures)
                return self.model.visual_head(features), embeddings
    """)
    assert found == {("blocking_cpu", "features = self.model.embed_pictures(pictures)"),
                     ("blocking_cpu", "return self.model.visual_head(features), embeddings")}


def test_iterating_a_text_streamer_waits_on_the_loop_and_the_async_streamer_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from threading import Thread

        from transformers import AsyncTextIteratorStreamer, TextIteratorStreamer

        def drain(model, tokenizer, inputs):
            streamer = TextIteratorStreamer(tokenizer, skip_prompt=True)
            Thread(target=model.generate, kwargs={**inputs, "streamer": streamer}).start()
            for piece in streamer:
                yield piece

        async def reply(model, tokenizer, inputs):
            return [piece for piece in drain(model, tokenizer, inputs)]

        async def reply_async(model, tokenizer, inputs):
            streamer = AsyncTextIteratorStreamer(tokenizer, skip_prompt=True)
            Thread(target=model.generate, kwargs={**inputs, "streamer": streamer}).start()
            return [piece async for piece in streamer]

        async def reply_off_loop(model, tokenizer, inputs):
            return await asyncio.to_thread(lambda: list(drain(model, tokenizer, inputs)))
    """)
    assert found == {("blocking_task", "for piece in streamer:")}


def test_a_class_chosen_from_a_class_level_dict_runs_its_constructor_and_its_override(tmp_path):
    found = flagged(tmp_path, """
        from mflux.models.common.config import ModelConfig
        from mflux.models.flux.variants.txt2img.flux import Flux1

        class Painter:
            def __init__(self, path):
                self.path = path
                self.config = ModelConfig.dev()
                self.prepare()

            def prepare(self):
                pass

        class SketchPainter(Painter):
            def prepare(self):
                self.engine = Flux1(model_path=self.path, quantize=4)

        class NullPainter(Painter):
            def prepare(self):
                self.engine = None

        class Studio:
            PAINTERS = {"sketch": SketchPainter, "null": NullPainter}

            def __init__(self, path, style):
                painter_class = self.PAINTERS[style]
                self.painter = painter_class(path)

        async def open_studio(style):
            return Studio("/weights", style)
    """)
    assert found == {("blocking_file_io", "self.engine = Flux1(model_path=self.path, quantize=4)")}


def test_a_config_loaded_from_pretrained_is_no_model(tmp_path):
    found = flagged(tmp_path, """
        from transformers import AutoConfig, AutoModelForCausalLM

        async def describe(repo):
            config = AutoConfig.from_pretrained(repo)
            model = AutoModelForCausalLM.from_pretrained(repo)
            settings = config.to_dict()
            return settings, model.summarise_weights()
    """)
    assert found == {("blocking_file_io", "config = AutoConfig.from_pretrained(repo)"),
                     ("blocking_file_io", "model = AutoModelForCausalLM.from_pretrained(repo)"),
                     ("blocking_cpu", "return settings, model.summarise_weights()")}
