"""check blocking: model and file libraries outside the old vocabulary (issue 17, waves 11-18) -- speech models
(kokoro, sherpa-onnx, FunASR, onnx-asr, Coqui TTS/XTTS, UVR, faster-whisper's decoders), PyMuPDF pages reached by
iterating a document, mido through a star import, SQLAlchemy/SQLModel DDL. Each blocker is found at its line;
each look-alike (offloaded, awaited, a different library's method of the same name) stays silent. Every example
is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_speech_models_built_and_run_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import sherpa_onnx
        from funasr import AutoModel
        from kokoro import KPipeline
        from TTS.api import TTS
        import onnx_asr

        async def speak(text):
            pipe = KPipeline(lang_code="a")
            for chunk in pipe(text, voice="af_heart"):
                yield chunk

        async def listen(samples):
            rec = sherpa_onnx.OfflineRecognizer.from_transducer(encoder="e.onnx", decoder="d.onnx", joiner="j.onnx",
                                                                tokens="t.txt")
            stream = rec.create_stream()
            rec.decode_stream(stream)
            return stream.result.text

        async def recognise(path):
            model = AutoModel(model="paraformer-zh")
            return model.generate(input=path)

        async def clone(text, out):
            TTS("tts_models/multilingual/multi-dataset/xtts_v2").tts_to_file(text=text, file_path=out)

        async def asr(path):
            return onnx_asr.load_model("whisper-base").recognize(path)

        def _offline(path):
            return AutoModel(model="paraformer-zh").generate(input=path)

        async def recognise_off_loop(path):
            return await asyncio.to_thread(_offline, path)
    """)
    assert found == {
        ("blocking_file_io", 'pipe = KPipeline(lang_code="a")'),
        ("blocking_cpu", 'for chunk in pipe(text, voice="af_heart"):'),
        ("blocking_file_io", 'rec = sherpa_onnx.OfflineRecognizer.from_transducer(encoder="e.onnx", '
                             'decoder="d.onnx", joiner="j.onnx",'),
        ("blocking_cpu", "rec.decode_stream(stream)"),
        ("blocking_file_io", 'model = AutoModel(model="paraformer-zh")'),
        ("blocking_cpu", "return model.generate(input=path)"),
        ("blocking_file_io", 'TTS("tts_models/multilingual/multi-dataset/xtts_v2").tts_to_file(text=text, file_path=out)'),
        ("blocking_cpu", 'TTS("tts_models/multilingual/multi-dataset/xtts_v2").tts_to_file(text=text, file_path=out)'),
        ("blocking_file_io", 'return onnx_asr.load_model("whisper-base").recognize(path)'),
        ("blocking_cpu", 'return onnx_asr.load_model("whisper-base").recognize(path)'),
    }


def test_a_pdf_page_reached_by_iterating_the_document_blocks_and_a_soup_get_text_does_not(tmp_path):
    found = flagged(tmp_path, """
        import fitz
        from bs4 import BeautifulSoup

        async def pdf_text(path):
            doc = fitz.open(path)
            return [page.get_text() for page in doc]

        async def html_text(html):
            soup = BeautifulSoup(html, "html.parser")
            return [tag.get_text() for tag in soup.find_all("p")]
    """)
    assert found == {("blocking_file_io", "doc = fitz.open(path)"),
                     ("blocking_cpu", "return [page.get_text() for page in doc]")}


def _tree(tmp_path, files: dict[str, str]) -> set[tuple[str, str, str]]:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    report = analyze_path(tmp_path)
    return {(f.kind, f.location["file"].rsplit("/", 1)[-1],
             (tmp_path / f.location["file"].rsplit("/", 1)[-1]).read_text().splitlines()[f.location["line"] - 1]
             .strip()) for f in report.findings}


def test_a_module_bound_by_a_star_import_is_that_module_unless_all_leaves_it_out(tmp_path):
    found = _tree(tmp_path, {
        "tools.py": "import mido\n\ndef notes(mid):\n    return [m for m in mid]\n",
        "narrow.py": "import mido\n__all__ = ['ticks']\n\ndef ticks(mid):\n    return mid.ticks_per_beat\n",
        "svc.py": """
            from tools import *

            async def upload(data):
                return notes(mido.MidiFile(file=data))
        """,
        "other.py": """
            from narrow import *

            async def upload(mido):
                return mido.MidiFile(file=None)
        """})
    assert found == {("blocking_file_io", "svc.py", "return notes(mido.MidiFile(file=data))")}


def test_ddl_on_a_sync_engine_blocks_and_run_sync_on_an_async_engine_does_not(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import create_engine
        from sqlalchemy.ext.asyncio import create_async_engine
        from sqlalchemy.orm import declarative_base
        from sqlmodel import SQLModel

        Base = declarative_base()
        engine = create_engine("sqlite:///app.db")
        async_engine = create_async_engine("sqlite+aiosqlite:///app.db")

        async def startup():
            SQLModel.metadata.create_all(engine)
            Base.metadata.create_all(bind=engine)

        async def startup_async():
            async with async_engine.begin() as conn:
                await conn.run_sync(Base.metadata.create_all)
    """)
    assert found == {("blocking_db", "SQLModel.metadata.create_all(engine)"),
                     ("blocking_db", "Base.metadata.create_all(bind=engine)")}


def test_a_torchaudio_transform_runs_a_module_forward_and_torchaudio_functional_is_not_typed_as_one(tmp_path):
    found = flagged(tmp_path, """
        import torchaudio

        async def to_16k(wave, rate):
            resampler = torchaudio.transforms.Resample(orig_freq=rate, new_freq=16000)
            return resampler(wave)

        async def gain(wave):
            return torchaudio.functional.gain(wave, 3.0)
    """)
    assert found == {("blocking_cpu", "return resampler(wave)")}
