"""Review of the session-58 blocking changes: file locks tried without waiting (filelock/portalocker families and
the ``with`` entry), and untyped PEP 249 cursors whose calls are handed to a scheduler as coroutines."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- a file lock tried once (timeout=0, blocking=False) does not wait for its holder ------------------------------

_TRIES = """
    from filelock import FileLock, Timeout


    async def claim(job):
        lock = FileLock(f"{job}.lock")
        try:
            {attempt}
        except Timeout:
            return False
        lock.release()
        return True
"""


def test_a_file_lock_acquired_without_blocking_is_no_finding(tmp_path):
    assert flagged(tmp_path, _TRIES.replace("{attempt}", "lock.acquire(blocking=False)")) == set()


def test_a_file_lock_acquired_with_a_zero_timeout_is_no_finding(tmp_path):
    assert flagged(tmp_path, _TRIES.replace("{attempt}", "lock.acquire(timeout=0)")) == set()


def test_a_file_lock_acquired_with_a_long_timeout_still_waits(tmp_path):
    assert flagged(tmp_path, _TRIES.replace("{attempt}", "lock.acquire(timeout=30)")) == {
        ("blocking_file_io", "lock.acquire(timeout=30)")}


_ENTERED = """
    from filelock import FileLock, Timeout

    shared = FileLock("shared.lock"{options})


    async def refresh():
        try:
            with shared:
                return 1
        except Timeout:
            return 0
"""


def test_entering_a_file_lock_made_with_a_zero_timeout_is_no_finding(tmp_path):
    assert flagged(tmp_path, _ENTERED.replace("{options}", ", timeout=0")) == set()


def test_entering_a_file_lock_made_not_blocking_is_no_finding(tmp_path):
    assert flagged(tmp_path, _ENTERED.replace("{options}", ", blocking=False")) == set()


def test_entering_a_file_lock_made_with_a_timeout_still_waits(tmp_path):
    assert flagged(tmp_path, _ENTERED.replace("{options}", ", timeout=10")) == {("blocking_file_io", "with shared:")}


def test_entering_a_file_lock_constructed_in_the_with_made_not_blocking_is_no_finding(tmp_path):
    source = """
        from filelock import FileLock


        async def once(name):
            with FileLock(name + ".lock", blocking=False):
                return name
    """
    assert flagged(tmp_path, source) == set()


# -- an untyped cursor whose calls are scheduled as coroutines is an asyncio driver's ----------------------------

_CURSOR = """
    import asyncio
    import sqlite3


    async def count(bot, room):
        cur = bot.pool.cursor()
        {use}
        return cur


    def local_store():
        return sqlite3.connect("cache.db")
"""


def test_a_cursor_call_awaited_under_a_time_limit_is_a_coroutine(tmp_path):
    use = "await asyncio.wait_for(cur.execute('select 1'), timeout=5)\n        rows = cur.fetchall()"
    assert flagged(tmp_path, _CURSOR.replace("{use}", use)) == set()


def test_a_cursor_rebound_by_unpacking_is_not_the_cursor(tmp_path):
    use = "cur, total = bot.pool.result(), 0\n        cur.execute('select 1')"
    assert flagged(tmp_path, _CURSOR.replace("{use}", use)) == set()


def test_a_cursor_call_handed_to_a_plain_function_still_blocks(tmp_path):
    use = "await bot.reply(cur.execute('select 1'))"
    assert flagged(tmp_path, _CURSOR.replace("{use}", use)) == {
        ("blocking_db", "await bot.reply(cur.execute('select 1'))")}


def test_a_portalocker_lock_made_to_fail_when_locked_is_no_finding(tmp_path):
    source = """
        import portalocker


        async def once(name):
            with portalocker.Lock(name, fail_when_locked=True):
                return name


        async def waits(name):
            with portalocker.Lock(name, timeout=5):
                return name
    """
    assert flagged(tmp_path, source) == {("blocking_file_io", "with portalocker.Lock(name, timeout=5):")}


_HELD = """
    from filelock import FileLock


    class Refresher:
        def __init__(self, path):
            self._lock = FileLock(path{options})

        async def refresh(self):
            with self._lock:
                return 1
"""


def test_entering_a_file_lock_its_class_made_with_a_zero_timeout_is_no_finding(tmp_path):
    assert flagged(tmp_path, _HELD.replace("{options}", ", timeout=0")) == set()


def test_entering_a_file_lock_its_class_made_to_wait_is_found(tmp_path):
    assert flagged(tmp_path, _HELD.replace("{options}", "")) == {("blocking_file_io", "with self._lock:")}
