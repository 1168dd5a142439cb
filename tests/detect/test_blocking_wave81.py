"""check blocking: the kinds held-out wave 81 (issue 17; chat-platform bots on asyncio frameworks) left, fixed by kind.

M1: ``with contextlib.closing(thing) as x`` binds ``thing`` itself, so a typed cursor stays typed through it.
M2: a PEP 249 cursor of a value the analysis cannot type, whose calls are never awaited, is a synchronous driver's
    (when the analysed files import one); an awaited cursor, or no sync driver in the files, stays silent.
F1: statements after a ``return``/``raise``/``continue``/``break`` in the same block never run.
Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this test.
"""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- M1: contextlib.closing ---------------------------------------------------------------------------------------------

_NOTES = """
    import asyncio
    import sqlite3
    from contextlib import closing


    class NoteKeeper:
        def __init__(self, path: str):
            self.db = sqlite3.connect(path, check_same_thread=False)

        def note_for(self, chat_id: int):
            with closing(self.db.cursor()) as cur:
                cur.execute("SELECT body FROM notes WHERE chat = ?", (chat_id,))
                return cur.fetchone()


    keeper = NoteKeeper("notes.db")


    async def on_note_command(chat_id: int):
        {call}
"""


def test_a_cursor_entered_through_closing_keeps_its_type(tmp_path):
    found = flagged(tmp_path, _NOTES.format(call="return keeper.note_for(chat_id)"))
    assert found == {("blocking_db", 'cur.execute("SELECT body FROM notes WHERE chat = ?", (chat_id,))'),
                     ("blocking_db", "return cur.fetchone()")}


def test_a_cursor_entered_through_closing_in_a_worker_thread_is_silent(tmp_path):
    found = flagged(tmp_path, _NOTES.format(call="return await asyncio.to_thread(keeper.note_for, chat_id)"))
    assert found == set()


def test_a_connection_entered_through_closing_keeps_its_type(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        from contextlib import closing


        async def count_rows(path: str):
            with closing(sqlite3.connect(path)) as conn:
                total = conn.execute("SELECT COUNT(*) FROM events")
                return total
    """)
    assert ("blocking_db", 'total = conn.execute("SELECT COUNT(*) FROM events")') in found


# -- M2: a PEP 249 cursor of an untyped value ---------------------------------------------------------------------------

_STORE = """
    import sqlite3


    def open_store(path):
        return sqlite3.connect(path)
"""

_COMMAND = """
    from contextlib import closing


    async def command_setting(room_id, text, bot):
        with closing(bot.storage.cursor()) as cur:
            {execute}
            {fetch}
        bot.storage.commit()
        await bot.reply(room_id, str(row))
"""


def test_an_untyped_values_cursor_called_without_await_is_a_sync_driver(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": _STORE,
        "commands.py": _COMMAND.format(execute='cur.execute("SELECT v FROM settings WHERE room = ?", (room_id,))',
                                       fetch="row = cur.fetchone()"),
    })
    assert found == {
        ("commands.py", "blocking_db", 'cur.execute("SELECT v FROM settings WHERE room = ?", (room_id,))'),
        ("commands.py", "blocking_db", "row = cur.fetchone()"),
        ("commands.py", "blocking_db", "bot.storage.commit()"),
    }


def test_a_plainly_assigned_cursor_of_an_untyped_value_is_a_sync_driver(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": _STORE,
        "handlers.py": """
            async def top_scores(message, db):
                cur = db.cursor()
                cur.execute("SELECT name, score FROM scores ORDER BY score DESC LIMIT 5")
                rows = cur.fetchall()
                await message.answer(str(rows))
        """,
    })
    assert {(k, line) for _, k, line in found} == {
        ("blocking_db", 'cur.execute("SELECT name, score FROM scores ORDER BY score DESC LIMIT 5")'),
        ("blocking_db", "rows = cur.fetchall()"),
    }


def test_an_untyped_values_cursor_that_is_awaited_is_an_async_driver(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": _STORE,
        "commands.py": _COMMAND.format(execute='await cur.execute("SELECT v FROM settings WHERE room = ?", (room_id,))',
                                       fetch="row = await cur.fetchone()"),
    })
    assert found == set()  # the commit of that same connection goes with its cursor: an async driver's too


def test_an_untyped_cursor_where_no_sync_driver_is_imported_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "commands.py": _COMMAND.format(execute='cur.execute("SELECT v FROM settings WHERE room = ?", (room_id,))',
                                       fetch="row = cur.fetchone()"),
    })
    assert found == set()


def test_a_cursor_of_an_own_class_is_read_not_guessed(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": _STORE,
        "editor.py": """
            class Cursor:
                def __init__(self):
                    self.lines = []

                def execute(self, command):
                    self.lines.append(command)

                def fetchone(self):
                    return self.lines[-1] if self.lines else None


            class Buffer:
                def cursor(self) -> Cursor:
                    return Cursor()


            async def replay(buffer: Buffer, command: str):
                cur = buffer.cursor()
                cur.execute(command)
                return cur.fetchone()
        """,
    })
    assert found == set()


# -- F1: statements after an exit -----------------------------------------------------------------------------------

_RETIRED = """
    import sqlite3


    async def command_usage(room_id, bot):
        await bot.reply(room_id, "this command is retired")
        {exit}

        conn = sqlite3.connect("usage.db")
        return conn.execute("SELECT SUM(tokens) FROM usage WHERE room = ?", (room_id,))
"""


def test_calls_after_a_return_in_the_same_block_never_run(tmp_path):
    assert flagged(tmp_path, _RETIRED.format(exit="return")) == set()


def test_calls_after_a_raise_in_the_same_block_never_run(tmp_path):
    assert flagged(tmp_path, _RETIRED.format(exit="raise RuntimeError('retired')")) == set()


def test_calls_after_a_return_inside_an_if_still_run(tmp_path):
    found = flagged(tmp_path, _RETIRED.format(exit="if not room_id:\n            return"))
    assert found == {("blocking_db", 'conn = sqlite3.connect("usage.db")'),
                     ("blocking_db", 'return conn.execute("SELECT SUM(tokens) FROM usage WHERE room = ?", (room_id,))')}


def test_calls_after_a_continue_in_a_loop_body_never_run(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3


        async def sweep(rooms):
            for room in rooms:
                if room:
                    continue
                    sqlite3.connect("never.db")
                sqlite3.connect("rooms.db")
    """)
    assert found == {("blocking_db", 'sqlite3.connect("rooms.db")')}
