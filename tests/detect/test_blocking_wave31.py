"""check blocking: the kinds stop 30 left (issue 17) -- RealtimeTTS/RealtimeSTT objects whose construction loads a
model. Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_building_a_local_realtime_tts_engine_or_recorder_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        from RealtimeTTS import KokoroEngine, TextToAudioStream
        from RealtimeTTS.engines.coqui_engine import CoquiEngine
        try:
            from RealtimeSTT import AudioToTextRecorder
        except ImportError:
            AudioToTextRecorder = None

        class Speaker:
            def __init__(self, kind):
                if kind == "kokoro":
                    self.engine = KokoroEngine(voice="af_sky")
                else:
                    self.engine = CoquiEngine(voice="narrator.wav")
                self.stream = TextToAudioStream(self.engine)

        async def startup(app, options):
            app.speaker = Speaker(options.kind)
            app.ears = AudioToTextRecorder(model="tiny.en", spinner=False)
    """)
    assert found == {("blocking_file_io", 'self.engine = KokoroEngine(voice="af_sky")'),
                     ("blocking_file_io", 'self.engine = CoquiEngine(voice="narrator.wav")'),
                     ("blocking_file_io", 'app.ears = AudioToTextRecorder(model="tiny.en", spinner=False)')}


def test_a_realtime_engine_built_off_the_loop_or_a_cloud_engine_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from RealtimeTTS import KokoroEngine, OpenAIEngine, TextToAudioStream

        def build():
            return TextToAudioStream(KokoroEngine(voice="af_sky"))

        async def startup(app):
            app.stream = await asyncio.to_thread(build)
            app.cloud = TextToAudioStream(OpenAIEngine(voice="alloy"))
    """)
    assert found == set()


def test_resizing_an_uploaded_image_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image

        async def decode(upload) -> Image.Image:
            return Image.open(io.BytesIO(await upload.read()))

        async def shrink(upload, factor):
            picture = await decode(upload)
            picture = picture.resize((picture.width // factor, picture.height // factor), Image.LANCZOS)
            return picture

        async def preview(upload):
            icon = Image.open(io.BytesIO(await upload.read())).convert("RGB")
            icon.thumbnail((128, 128))
            return icon

        async def named(upload):
            return Image.open(io.BytesIO(await upload.read())), upload.filename

        async def banner(upload):
            art, title = await named(upload)
            return art.resize((1200, 300)), title
    """)
    assert found == {("blocking_cpu", "picture = picture.resize((picture.width // factor, picture.height // factor), "
                                      "Image.LANCZOS)"),
                     ("blocking_cpu", 'icon = Image.open(io.BytesIO(await upload.read())).convert("RGB")'),  # decodes
                     ("blocking_cpu", "icon.thumbnail((128, 128))"),
                     ("blocking_cpu", "return art.resize((1200, 300)), title")}


def test_resizing_off_the_loop_or_a_non_image_resize_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import io
        from PIL import Image

        def shrink(data, size):
            picture = Image.open(io.BytesIO(data))
            return picture.resize(size)

        class Window:
            def resize(self, size):
                self.size = size

        async def handle(upload, window: Window):
            window.resize((640, 480))
            return await asyncio.to_thread(shrink, await upload.read(), (64, 64))
    """)
    assert found == set()


_VISION_MODEL = """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    class Backend:
        def __init__(self, repo):
            self.model = AutoModelForCausalLM.from_pretrained(repo, trust_remote_code=True)
            self.tokenizer = AutoTokenizer.from_pretrained(repo)
"""


def test_a_remote_code_helper_that_only_tokenises_the_prompt_is_silent(tmp_path):
    found = flagged(tmp_path, _VISION_MODEL + """
        async def reply(self, prompt, history, pictures):
            if pictures:
                features = self.model.encode_image(pictures) if pictures else None
            else:
                features = None
            ids = self.model.tokenizer_image_token(prompt, self.tokenizer, -200)
            text = self.model.build_inputs(self.tokenizer, prompt, history)
            embeds = self.model.input_embeds(prompt, features, self.tokenizer)
            return ids, text, embeds
    """)
    assert found == {("blocking_cpu", "features = self.model.encode_image(pictures) if pictures else None")}


def test_a_remote_code_helper_handed_a_raw_image_or_generating_still_blocks(tmp_path):
    found = flagged(tmp_path, _VISION_MODEL + """
        async def reply(self, prompt, history, image):
            ids = self.model.build_input_ids(self.tokenizer, prompt, images=[image])
            embeds = self.model.input_embeds(prompt, image, self.tokenizer)
            answer = self.model.chat(self.tokenizer, prompt, history=history)
            batch = self.model.prepare_inputs(prompt)
            return ids, embeds, answer, batch
    """)
    assert found == {("blocking_cpu", "ids = self.model.build_input_ids(self.tokenizer, prompt, images=[image])"),
                     ("blocking_cpu", "embeds = self.model.input_embeds(prompt, image, self.tokenizer)"),
                     ("blocking_cpu", "answer = self.model.chat(self.tokenizer, prompt, history=history)")}


def test_a_blocker_in_a_branch_no_caller_takes_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import time

        def render(frames, mode, progress=False, dump_to=None):
            if mode == "draft":
                time.sleep(0.5)
            elif mode != "final":
                time.sleep(1.0)
            if progress:
                time.sleep(0.1)
            if dump_to is not None:
                with open(dump_to, "w") as out:
                    out.write(str(frames))
            if not frames:
                time.sleep(2.0)
            return frames

        async def handler(frames):
            return render(frames, "final") + render([], mode="final", progress=False)
    """)
    assert found == {("blocking_sleep", "time.sleep(2.0)")}


def test_a_branch_some_caller_may_take_still_blocks(tmp_path):
    found = flagged(tmp_path, """
        import threading
        import time

        def render(mode, progress=False):
            if mode == "draft":
                time.sleep(0.5)
            if progress:
                time.sleep(0.1)

        def stamp(path=None):
            if path:
                time.sleep(0.3)

        class Printer:
            def page(self, mode):
                if mode == "proof":
                    time.sleep(0.2)

        async def handler(request):
            render("final", progress=request.verbose)
            render("draft")
            stamp()
            request.on_close(stamp)  # handed on: whoever calls it may pass a path
            Printer.page(None, "proof")
    """)
    assert found == {("blocking_sleep", "time.sleep(0.5)"), ("blocking_sleep", "time.sleep(0.1)"),
                     ("blocking_sleep", "time.sleep(0.3)"), ("blocking_sleep", "time.sleep(0.2)")}


def test_an_lcel_chain_started_by_a_runnable_class_method_blocks_when_invoked(tmp_path):
    found = flagged(tmp_path, """
        from operator import itemgetter
        from langchain_core.runnables import RunnableLambda, RunnablePassthrough

        def recall(inputs):
            return inputs["question"]

        async def answer(question, prompt, model):
            with_history = RunnablePassthrough.assign(history=RunnableLambda(recall) | itemgetter("text"))
            chain = with_history | {"question": itemgetter("question")} | prompt | model
            first = chain.invoke({"question": question})
            rest = chain.batch([{"question": q} for q in ("a", "b")])
            streamed = await chain.ainvoke({"question": question})
            return first, rest, streamed
    """)
    assert found == {("blocking_http", 'first = chain.invoke({"question": question})'),
                     ("blocking_http", 'rest = chain.batch([{"question": q} for q in ("a", "b")])')}


def test_an_lcel_chain_awaited_or_a_plain_set_union_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from langchain_core.runnables import RunnablePassthrough

        class Tags:
            def invoke(self, other):
                return other

        async def answer(question, prompt, model):
            chain = RunnablePassthrough.assign(q=lambda x: x) | prompt | model
            tags = {"a"} | {"b"}
            Tags().invoke(tags)
            return await chain.ainvoke({"question": question}), [c async for c in chain.astream({})]
    """)
    assert found == set()
