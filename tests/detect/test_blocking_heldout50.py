"""check blocking: the kinds held-out wave 50 (issue 17; discord.py bots and cogs, a Textual SQL client, a Kaldi
speech-recognition server, a Jupyter server extension, and a bot's documented "run PIL in an executor" fix) left,
fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- APSW is SQLite: its statements are database calls ---------------------------------------------------------------


def test_an_apsw_query_in_a_command_is_a_database_call(tmp_path):
    found = flagged(tmp_path, """
        import apsw

        class Tally:
            def __init__(self, path):
                self.db = apsw.Connection(path)
                self.cur = self.db.cursor()

            async def top(self, guild_id):
                rows = self.cur.execute("SELECT word FROM counts WHERE guild = ?", (guild_id,)).fetchall()
                return rows

        async def setup(path):
            return Tally(path)
    """)
    assert found == {
        ("blocking_db", "self.db = apsw.Connection(path)"),
        ("blocking_db", 'rows = self.cur.execute("SELECT word FROM counts WHERE guild = ?", (guild_id,)).fetchall()'),
    }


def test_an_apsw_write_handed_to_an_executor_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import apsw

        def record(path, rows):
            cur = apsw.Connection(path).cursor()
            cur.executemany("INSERT INTO counts VALUES (?, ?)", rows)

        async def on_message(path, rows):
            await asyncio.get_running_loop().run_in_executor(None, record, path, rows)
    """)
    assert found == set()


# -- Pillow's ImageEnhance blends every pixel -------------------------------------------------------------------------


def test_an_enhancer_applied_in_a_command_helper_is_found(tmp_path):
    found = flagged(tmp_path, """
        from PIL import Image, ImageEnhance

        def crisp(picture):
            booster = ImageEnhance.Contrast(picture)
            return booster.enhance(3.0)

        async def crisp_command(path):
            return crisp(Image.open(path))
    """)
    assert ("blocking_cpu", "return booster.enhance(3.0)") in found


def test_an_enhancer_run_in_a_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from PIL import ImageEnhance

        def brighter(picture):
            return ImageEnhance.Brightness(picture).enhance(1.4)

        async def brighten_command(picture):
            return await asyncio.to_thread(brighter, picture)
    """)
    assert found == set()


# -- Vosk's GPU batch model is loaded like Model; its recognizer only queues -------------------------------------------


def test_a_batch_model_loaded_in_the_server_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from vosk import BatchModel

        async def serve(model_dir):
            model = BatchModel(model_dir)
            await asyncio.sleep(0)
            return model
    """)
    assert found == {("blocking_file_io", "model = BatchModel(model_dir)")}


def test_feeding_the_batch_recognizer_and_polling_it_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from vosk import BatchRecognizer

        async def transcribe(model, chunk):
            rec = BatchRecognizer(model, 16000)
            rec.AcceptWaveform(chunk)
            while rec.GetPendingChunks() > 0:
                await asyncio.sleep(0.1)
            return rec.Result()
    """)
    assert found == set()


# -- GitPython's commits and diffs read the object database through git ------------------------------------------------


def test_resolving_a_commit_and_diffing_its_tree_in_a_handler_is_found(tmp_path):
    found = flagged(tmp_path, """
        from git import Repo

        def changed(root, base, paths):
            repo = Repo(root)
            tree = repo.commit(base).tree
            return [entry.a_path for entry in tree.diff(None, paths)]

        async def post(root, base, paths):
            return changed(root, base, paths)
    """)
    assert found == {("blocking_subprocess", "tree = repo.commit(base).tree"),
                     ("blocking_subprocess", "return [entry.a_path for entry in tree.diff(None, paths)]")}


def test_a_commit_read_in_a_thread_and_a_dict_named_commit_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from git import Repo

        def head_message(root):
            return Repo(root).commit("HEAD").message

        async def post(root, saved):
            labels = {"commit": "abc"}
            return await asyncio.to_thread(head_message, root), labels.get("commit"), saved.commit
    """)
    assert found == set()


# -- the items of a list a helper builds by appending and returns keep their type --------------------------------------


def test_saving_the_first_of_the_frames_a_helper_appended_is_found(tmp_path):
    found = flagged(tmp_path, """
        from PIL import Image

        def tinted(path):
            source = Image.open(path)
            frames = []
            for n in range(4):
                frame = source.copy()
                frames.append(frame)
            return frames

        async def tint_command(path, out):
            frames = tinted(path)
            frames[0].save(out, save_all=True, append_images=frames[1:])
    """)
    assert ("blocking_file_io", "frames[0].save(out, save_all=True, append_images=frames[1:])") in found


def test_items_of_mixed_lists_and_lists_extended_stay_unknown(tmp_path):
    found = flagged(tmp_path, """
        from PIL import Image

        def captions(path):
            names = []
            names.append(path)
            names.append(Image.open(path))
            return names

        def layers(path, more):
            kept = []
            kept.append(Image.open(path))
            kept.extend(more)
            return kept

        async def caption_command(path, out, more):
            first = captions(path)
            first[0].save(out)
            top = layers(path, more)
            top[1].save(out)
    """)
    assert not any(line.endswith(".save(out)") for _, line in found)


def test_reading_the_blob_of_each_diff_entry_in_a_handler_is_found(tmp_path):
    found = flagged(tmp_path, """
        from git import Repo

        def text_of(blob):
            return blob.data_stream.read().decode("utf-8")

        async def changed_texts(root, base, head):
            repo = Repo(root)
            out = []
            for entry in repo.commit(base).tree.diff(repo.commit(head).tree):
                out.append(text_of(entry.a_blob))
            return out
    """)
    assert ("blocking_subprocess", 'return blob.data_stream.read().decode("utf-8")') in found


def test_a_data_stream_of_an_upload_and_a_blob_read_in_a_thread_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from git import Repo

        def first_blob_text(root):
            diff = Repo(root).commit("HEAD").diff("HEAD~1")
            return [entry.a_blob.data_stream.read() for entry in diff]

        async def handler(root, upload):
            chunk = upload.data_stream.read()
            return chunk, await asyncio.to_thread(first_blob_text, root)
    """)
    assert found == set()
