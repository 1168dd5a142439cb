"""check blocking: kinds stop 34 left (issue 17), fixed at stop 35. Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- a generator a method returns, iterated by the caller on the loop ------------------------------------------
TRANSCRIBER = """
    import time

    class Transcriber:
        def _pieces(self, path):
            for part in range(3):
                time.sleep(0.5)
                yield (path, part)

        def __call__(self, path, stream=False):
            if stream:
                return self._pieces(path)
            return "whole"
{tail}
"""


def test_a_generator_returned_by_call_and_iterated_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, TRANSCRIBER.replace("{tail}", """
    reader = Transcriber()

    async def transcribe(path):
        pieces = reader(path, stream=True)
        return [p for p in pieces]
    """))
    assert ("blocking_sleep", "time.sleep(0.5)") in found


def test_a_generator_returned_through_a_local_and_iterated_in_a_for_blocks(tmp_path):
    found = flagged(tmp_path, """
        import time

        class Feed:
            def _rows(self):
                while True:
                    time.sleep(1)
                    yield 1

            def rows(self):
                made = self._rows()
                return made

        feed = Feed()

        async def pump(out):
            for row in feed.rows():
                out.append(row)
    """)
    assert ("blocking_sleep", "time.sleep(1)") in found


def test_a_returned_generator_handed_on_without_iterating_is_silent(tmp_path):
    # the endpoint hands the generator to the framework (which iterates a sync one in its thread pool)
    found = flagged(tmp_path, TRANSCRIBER.replace("{tail}", """
    reader = Transcriber()

    async def transcribe(path, respond):
        return respond(reader(path, stream=True))
    """))
    assert found == set()


# -- a name narrowed by isinstance holds that class in the branch -------------------------------------------------
def test_an_upload_found_by_isinstance_is_read_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from starlette.datastructures import UploadFile

        async def parts_of(form, key):
            out = []
            for part in form.getlist(key):
                if isinstance(part, UploadFile):
                    out.append(part.file.read())
                else:
                    out.append(part)
            return out
    """)
    assert ("blocking_file_io", "out.append(part.file.read())") in found


def test_the_other_branch_and_a_rebound_name_are_not_narrowed(tmp_path):
    found = flagged(tmp_path, """
        from starlette.datastructures import UploadFile

        async def parts_of(form, key, default):
            out = []
            for part in form.getlist(key):
                if isinstance(part, UploadFile):
                    part = default
                    out.append(part.file.read())
                elif part:
                    out.append(part.file.read())
            return out
    """)
    assert found == set()


# -- a function handed to a base's method and stored on self there ------------------------------------------------
CACHED = """
    from functools import lru_cache
    import requests

    class Cached:
        def _remember(self, compute, enabled, size):
            if enabled:
                self._lookup = lru_cache(maxsize=size)(compute)
            else:
                self._lookup = compute

    class Scorer(Cached):
        def __init__(self):
            super()._remember(self._score, True, 128)

        def _score(self, text):
            return requests.post("https://scores.example.invalid", json={{"t": text}}).json()

        def score(self, text):
            return {call}

    scorer = Scorer()

    async def rate(text):
        return scorer.score(text)
"""


def test_a_method_handed_to_a_base_and_cached_on_self_runs_where_it_is_called(tmp_path):
    found = flagged(tmp_path, CACHED.format(call="self._lookup(text)"))
    assert ("blocking_http", 'return requests.post("https://scores.example.invalid", json={"t": text}).json()') \
        in found


def test_a_stored_function_never_called_blocks_nothing(tmp_path):
    assert flagged(tmp_path, CACHED.format(call="self._lookup")) == set()


# -- the items of a library loader's returned tuple ---------------------------------------------------------------
def test_a_model_unpacked_from_a_loader_into_self_runs_its_forward_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from mlx_embeddings.utils import load

        class Embedder:
            def __init__(self, name):
                self.net, self.vocab = load(name)

            def vectors(self, ids):
                return self.net(ids)

        embedder = Embedder("some/embedding-model")

        async def embed(ids):
            return embedder.vectors(ids)
    """)
    assert ("blocking_cpu", "return self.net(ids)") in found


def test_a_describer_model_unpacked_into_locals_generates_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from llava.model.builder import load_pretrained_model

        tok, net, images, context = load_pretrained_model("some/llava", None, "llava")

        async def describe(ids):
            return net.generate(ids, max_new_tokens=64)
    """)
    assert ("blocking_cpu", "return net.generate(ids, max_new_tokens=64)") in found


def test_the_other_items_and_an_unknown_loader_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from mlx_embeddings.utils import load
        from shoplib import load_pair

        net, vocab = load("some/embedding-model")
        left, right = load_pair("x")

        async def embed(text):
            return vocab(text), right(text)
    """)
    assert found == set()


# -- an isinstance branch no caller's argument type takes ---------------------------------------------------------
RECOGNISER = """
    import io
    from typing import Union

    import numpy as np
    import soundfile as sf

    class Recogniser:
        def prepare(self, audio: Union[str, np.ndarray]):
            def from_disk(path):
                with open(path, "rb") as handle:
                    return np.frombuffer(handle.read(), dtype=np.int16)

            if isinstance(audio, np.ndarray):
                return [audio]
            if isinstance(audio, str):
                return [from_disk(audio)]
            raise TypeError(audio)

        def __call__(self, audio):
            return self.prepare(audio)

    recogniser = Recogniser()

    async def hear(samples):
        return recogniser(samples)

    async def upload(payload: bytes, name: str):
        {body}
"""


def test_a_file_branch_every_caller_skips_with_an_array_is_silent(tmp_path):
    found = flagged(tmp_path, RECOGNISER.replace("{body}", """samples, rate = sf.read(io.BytesIO(payload))
        return await hear(samples)"""))
    assert not any("handle.read()" in line or "open(path" in line for _, line in found), found


def test_the_file_branch_blocks_when_a_caller_passes_a_path(tmp_path):
    found = flagged(tmp_path, RECOGNISER.replace("{body}", """return await hear(f"/uploads/{name}.wav")"""))
    assert ("blocking_file_io", 'with open(path, "rb") as handle:') in found


def test_the_file_branch_blocks_when_an_argument_type_is_unknown(tmp_path):
    found = flagged(tmp_path, RECOGNISER.replace("{body}", """return await hear(payload.decode_somehow())"""))
    assert ("blocking_file_io", 'with open(path, "rb") as handle:') in found


# -- spaCy add_pipe: a model-backed factory loads its model, a rule-based one does not ----------------------------
def test_adding_a_model_backed_spacy_component_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import spacy

        nlp = spacy.blank("en")

        async def enable(kind):
            nlp.add_pipe("coref_resolver_of_some_package")
            nlp.add_pipe(kind)
            nlp.add_pipe("sentencizer", config={"punct_chars": None})
            return nlp.pipe_names
    """)
    assert found == {("blocking_file_io", 'nlp.add_pipe("coref_resolver_of_some_package")'),
                     ("blocking_file_io", "nlp.add_pipe(kind)")}


# -- a library's transformers-style model head loads and runs like a transformers model ---------------------------
def test_a_library_causal_lm_head_from_pretrained_runs_its_methods_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from picturelm.model import PictureLlamaForCausalLM
        from picturelm.prompts import PromptBook

        model = PictureLlamaForCausalLM.from_pretrained("some/picture-llama")
        book = PromptBook.from_pretrained("some/prompts")

        async def look(pixels):
            features = model.encode_image(pixels)
            return features, book.render("describe")
    """)
    assert found == {("blocking_cpu", "features = model.encode_image(pixels)")}


def test_a_dsp_local_model_built_per_request_blocks(tmp_path):
    found = flagged(tmp_path, """
        import dsp

        class Answerer:
            def __call__(self, model_name, question):
                self.lm = dsp.HFModel(model_name)
                return question

        answerer = Answerer()

        async def ask(model_name, question):
            return answerer(model_name, question)
    """)
    assert found == {("blocking_file_io", "self.lm = dsp.HFModel(model_name)")}


# -- a class picked from a literal dict (of classes, or of (class, options) pairs) and constructed ----------------
READERS = """
    from langchain_community.document_loaders import CSVLoader, PyPDFLoader, TextLoader

    BY_SUFFIX = {".pdf": PyPDFLoader, ".txt": TextLoader, ".csv": CSVLoader}
    WITH_OPTIONS = {".pdf": (PyPDFLoader, {}), ".txt": (TextLoader, {"encoding": "utf8"})}
    LABELS = {".pdf": ("PDF", 1), ".txt": ("text", 2)}

    async def read_one(path, suffix):
        {body}
"""


def test_a_loader_class_picked_from_a_dict_reads_the_file_on_the_loop(tmp_path):
    found = flagged(tmp_path, READERS.replace("{body}", """reader = BY_SUFFIX[suffix]
        return reader(path).load()"""))
    assert ("blocking_file_io", "return reader(path).load()") in found


def test_a_loader_class_unpacked_from_a_dict_of_pairs_reads_the_file_on_the_loop(tmp_path):
    found = flagged(tmp_path, READERS.replace("{body}", """reader, options = WITH_OPTIONS[suffix]
        loader = reader(path, **options)
        return loader.load()"""))
    assert ("blocking_file_io", "return loader.load()") in found


def test_plain_values_unpacked_from_a_dict_of_pairs_stay_silent(tmp_path):
    found = flagged(tmp_path, READERS.replace("{body}", """name, rank = LABELS[suffix]
        return name.upper(), rank"""))
    assert found == set()


def test_a_helper_only_a_type_branch_calls_never_runs_when_callers_pass_tensors(tmp_path):
    source = """
        import subprocess

        import torch

        def decode_file(path):
            return subprocess.run(["ffmpeg", "-i", path, "-f", "s16le", "-"], capture_output=True).stdout

        def features(audio):
            if not torch.is_tensor(audio):
                if isinstance(audio, str):
                    audio = decode_file(audio)
                audio = torch.from_numpy(audio)
            return audio.abs()

        async def step(chunks):
            return features({arg})
    """
    assert flagged(tmp_path, source.replace("{arg}", "torch.cat(chunks)")) == set()
    assert ("blocking_subprocess", 'return subprocess.run(["ffmpeg", "-i", path, "-f", "s16le", "-"], '
            'capture_output=True).stdout') in flagged(tmp_path, source.replace("{arg}", '"/tmp/clip.wav"'))
