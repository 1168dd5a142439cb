"""check blocking: kinds first seen on unseen services in wave 27 (issue 17). Each blocker is found at its line;
each healthy look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_function_taken_from_a_literal_table_in_a_loop_runs(tmp_path):
    found = flagged(tmp_path, """
        import json

        def read_notes(path):
            with open(path) as fh:
                return fh.read()

        def read_cards(path):
            return json.load(open(path))

        def collect(folder):
            sources = [("notes", folder + "/notes", read_notes), ("cards", folder + "/cards", read_cards)]
            out = []
            for label, where, reader in sources:
                out.append((label, reader(where)))
            return out

        async def handle(message):
            return collect(message)
    """)
    assert ("blocking_file_io", "with open(path) as fh:") in found
    assert ("blocking_file_io", "return json.load(open(path))") in found


def test_a_module_dict_walked_with_items_or_values_runs_each_value(tmp_path):
    found = flagged(tmp_path, """
        import subprocess
        import time

        def pull(repo):
            subprocess.run(["git", "pull"], cwd=repo)

        def settle(repo):
            time.sleep(2)

        STEPS = {"pull": pull, "settle": settle}

        async def refresh(repo):
            for name, step in STEPS.items():
                step(repo)

        async def refresh_again(repo):
            for step in STEPS.values():
                step(repo)
    """)
    assert ("blocking_subprocess", 'subprocess.run(["git", "pull"], cwd=repo)') in found
    assert ("blocking_sleep", "time.sleep(2)") in found


def test_a_loop_over_a_table_of_harmless_functions_or_over_dict_keys_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import time

        def upper(text):
            return text.upper()

        def strip(text):
            return text.strip()

        def nap(text):
            time.sleep(1)

        CLEANERS = {"nap": nap}

        async def clean(text):
            for name, fn in [("upper", upper), ("strip", strip)]:
                text = fn(text)
            for key in CLEANERS:  # a dict iterates its keys: key is a string, never called
                text = text + key
            return text
    """)
    assert found == set()


def test_ocr_epub_spark_and_git_calls_block(tmp_path):
    found = flagged(tmp_path, """
        import pytesseract
        from PIL import Image
        from ebooklib import epub
        from git import Repo
        from pyspark.ml import PipelineModel

        async def read_scan(path):
            return pytesseract.image_to_string(Image.open(path))

        async def read_book(path):
            return epub.read_epub(path)

        async def mirror(url, where):
            Repo.clone_from(url, where)

        def scorer(path) -> PipelineModel:
            return PipelineModel.load(path)

        async def score(path, rows):
            model = scorer(path)
            scored = model.transform(rows)
            return scored.select("prediction").collect()
    """)
    assert ("blocking_subprocess", "return pytesseract.image_to_string(Image.open(path))") in found
    assert ("blocking_file_io", "return epub.read_epub(path)") in found
    assert ("blocking_subprocess", "Repo.clone_from(url, where)") in found
    assert ("blocking_file_io", "return PipelineModel.load(path)") in found
    assert ("blocking_cpu", 'return scored.select("prediction").collect()') in found


def test_lazy_spark_plans_offloaded_ocr_and_local_git_objects_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import pytesseract
        from git import Repo
        from pyspark.sql import DataFrame

        async def plan(frame: DataFrame):
            return frame.select("a").filter("a > 1").withColumn("b", frame.a)

        async def read_scan(image):
            return await asyncio.to_thread(pytesseract.image_to_string, image)

        async def describe(repo: Repo):
            return repo.working_dir
    """)
    assert found == set()
