"""The standard library: sleeps, urllib/http.client, files, sockets, subprocesses, sqlite3, queues and
thread/process waits, key derivation.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`);
each entry names the documentation that says the call blocks the calling thread.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names as _names

PY = "https://docs.python.org/3/library/"
PYSQLITE3 = ("https://github.com/coleifer/pysqlite3 (the standard library's sqlite3 module built against a newer "
             "SQLite: the same interface)")
KDF_ROUNDS = 10_000
"""Rounds from which ``hashlib.pbkdf2_hmac`` holds the loop for a measurable time: 10,000 rounds of SHA-256 take
~5-8 ms on a shared 2-core VM (2,048, BIP-39's seed derivation, ~1 ms; 100,000 ~120 ms); the docs ask for hundreds of
thousands for passwords (https://docs.python.org/3/library/hashlib.html#hashlib.pbkdf2_hmac)."""
FUTURES_ITERATOR = "concurrent.futures.Executor.map"
"""What ``Executor.map`` and ``as_completed`` return: an iterator whose every item waits for a worker thread."""
DIR_LISTING = "pathlib.Path.iterdir"
"""What ``Path.glob``/``rglob``/``iterdir`` return: a generator of ``Path`` objects, one per entry
(https://docs.python.org/3/library/pathlib.html#pathlib.Path.glob). The call that lists is reported where it is made:
since stop 46 one directory's listing counts as a whole tree's walk
(:mod:`~faultlib.detect.serving.blocking.libraries.fileformats` cites Home Assistant's loop detector); what the loop
does with each ``Path`` is typed through ``__iter__``."""
FILE_OBJECT = "io.IOBase"
"""What ``os.fdopen(fd, mode)`` returns: a file object over an already open descriptor (``tempfile.mkstemp``'s),
"an alias of the open() built-in" (https://docs.python.org/3/library/os.html#os.fdopen). Wrapping the descriptor
does no I/O; its reads and writes go to the file (the family below)."""
STACK_WALK = (PY + "inspect.html#the-interpreter-stack (stack(), trace(), getouterframes() and getinnerframes() "
              "build a FrameInfo per frame with its file name and, by default, a line of source context: "
              "getframeinfo resolves each frame's source file (os.path checks, getmodule's scan of sys.modules "
              "on a miss) and findsource calls linecache.checkcache, an os.stat of the file, and reads it "
              "when not cached; per frame, every call; a stack walk where frame.f_back or sys._getframe would do)")
"""House rule (stop 54, held-out wave 67): the walk of the whole stack is ``blocking_cpu`` (Python work per frame,
with a stat of each frame's file): a timing decorator that names its caller by ``inspect.stack()[2]`` on every
timed block of a bot's handlers."""
STDLIB = Vocabulary(
    calls={
        "time.sleep": ("blocking_sleep", PY + "time.html#time.sleep"),
        **_names("blocking_http", PY + "urllib.request.html", "urllib.request", "urlopen", "urlretrieve"),
        **_names("blocking_http", PY + "urllib.request.html", "urllib.request.OpenerDirector", "open"),
        **_names("blocking_http", PY + "http.client.html", "http.client.HTTPConnection", "request", "getresponse",
                 "connect"),
        **_names("blocking_http", PY + "http.client.html", "http.client.HTTPSConnection", "request", "getresponse",
                 "connect"),
        "builtins.open": ("blocking_file_io", PY + "functions.html#open"),
        "builtins.input": ("blocking_file_io", PY + "functions.html#input (reads a line from standard input: waits "
                           "until the user types one; held-out waves 69 and 70: an agent's ask-the-user tool, a "
                           "command-line chat loop in a coroutine)"),
        "io.open": ("blocking_file_io", PY + "io.html#io.open"),
        "wave.open": ("blocking_file_io", PY + "wave.html#wave.open (opens the file; writeframes/readframes then "
                      "write and read it)"),
        # the other openers of a named file: compressed files, codecs' and the key-value stores' (os.fdopen below)
        **{f"{m}.open": ("blocking_file_io", PY + f"{m}.html#{m}.open (opens the named file)")
           for m in ("gzip", "bz2", "lzma", "codecs", "shelve", "dbm")},
        **_names("blocking_file_io", PY + "os.html", "os", "read", "write", "fsync"),
        "os.walk": ("blocking_file_io", PY + "os.html#os.walk (lists a whole directory tree)"),
        **_names("blocking_file_io", PY + "pathlib.html", "pathlib.Path", "open", "read_text", "write_text",
                 "read_bytes", "write_bytes"),
        **_names("blocking_file_io", PY + "shutil.html", "shutil", "copy", "copy2", "copyfile", "copyfileobj",
                 "copytree", "rmtree",
                 "move", "make_archive", "unpack_archive"),
        # mkstemp/mkdtemp only create (one inode); TemporaryDirectory where it is removed (blocking.creations)
        **_names("blocking_file_io", PY + "tempfile.html", "tempfile", "NamedTemporaryFile", "TemporaryFile",
                 "SpooledTemporaryFile", "TemporaryDirectory"),
        **_names("blocking_file_io", PY + "pickle.html", "pickle", "load", "dump"),
        **_names("blocking_socket_io", PY + "socket.html", "socket", "create_connection", "getaddrinfo",
                 "gethostbyname", "gethostbyaddr"),
        **_names("blocking_socket_io", PY + "socket.html", "socket.socket", "connect", "connect_ex", "accept", "recv", "recv_into",
                 "recvfrom", "send", "sendall", "sendto", "sendfile"),
        "select.select": ("blocking_socket_io", PY + "select.html#select.select"),
        **_names("blocking_subprocess", PY + "subprocess.html", "subprocess", "run", "call", "check_call",
                 "check_output", "getoutput", "getstatusoutput"),
        **_names("blocking_subprocess", PY + "subprocess.html", "subprocess.Popen", "wait", "communicate"),
        **_names("blocking_subprocess", PY + "os.html#os.system", "os", "system", "popen", "wait", "waitpid"),
        **_names("blocking_cpu", PY + "hashlib.html#key-derivation", "hashlib", "pbkdf2_hmac", "scrypt"),
        **_names("blocking_cpu", STACK_WALK, "inspect", "stack", "trace", "getouterframes", "getinnerframes"),
        **_names("blocking_db", PY + "sqlite3.html", "sqlite3", "connect"),
        **{f"{m}.connect": ("blocking_db", "https://github.com/rigglemania/pysqlcipher3 and "
                                          "https://github.com/coleifer/sqlcipher3 (SQLCipher's DB-API modules: the "
                                          "sqlite3 interface, same connection and cursor)")
           for m in ("pysqlcipher3.dbapi2", "sqlcipher3", "sqlcipher3.dbapi2", "pysqlite2.dbapi2")},
        **{f"{m}.connect": ("blocking_db", PYSQLITE3) for m in ("pysqlite3", "pysqlite3.dbapi2")},
        **_names("blocking_db", PY + "sqlite3.html", "sqlite3.Connection", "execute", "executemany", "executescript",
                 "commit", "rollback", "backup"),
        **_names("blocking_db", PY + "sqlite3.html", "sqlite3.Cursor", "execute", "executemany", "executescript",
                 "fetchone", "fetchall", "fetchmany"),
    },
    returns={
        "socket.create_connection": "socket.socket", "socket.socket": "socket.socket",
        "urllib.request.build_opener": "urllib.request.OpenerDirector", "pathlib.Path": "pathlib.Path",
        **{f"pathlib.Path.{m}": "pathlib.Path" for m in ("resolve", "absolute", "with_suffix", "with_name",
                                                        "with_stem", "joinpath", "expanduser", "__truediv__")},
        "subprocess.Popen": "subprocess.Popen", "http.client.HTTPConnection": "http.client.HTTPConnection",
        "http.client.HTTPSConnection": "http.client.HTTPSConnection", "sqlite3.connect": "sqlite3.Connection",
        **{f"{m}.connect": "sqlite3.Connection" for m in ("pysqlcipher3.dbapi2", "sqlcipher3", "sqlcipher3.dbapi2",
                                                          "pysqlite2.dbapi2", "pysqlite3", "pysqlite3.dbapi2")},
        "sqlite3.Connection.cursor": "sqlite3.Cursor",
        # Connection.execute* make a cursor; Cursor.execute* return the cursor itself ("Return the cursor": sqlite3 docs)
        **{f"sqlite3.{c}.{m}": "sqlite3.Cursor" for c in ("Connection", "Cursor")
           for m in ("execute", "executemany", "executescript")},
        "asyncio.get_running_loop": "asyncio.AbstractEventLoop", "asyncio.get_event_loop": "asyncio.AbstractEventLoop",
        "asyncio.new_event_loop": "asyncio.AbstractEventLoop",
        "os.fdopen": FILE_OBJECT,
        "tempfile.TemporaryDirectory": "tempfile.TemporaryDirectory", "tempfile.SpooledTemporaryFile":
            "tempfile.SpooledTemporaryFile",
        "concurrent.futures.ThreadPoolExecutor": "concurrent.futures.ThreadPoolExecutor",
        "concurrent.futures.ProcessPoolExecutor": "concurrent.futures.ProcessPoolExecutor",
        **{f"concurrent.futures.{e}.submit": "concurrent.futures.Future"
           for e in ("ThreadPoolExecutor", "ProcessPoolExecutor", "Executor")},
        **{f"concurrent.futures.{e}.map": FUTURES_ITERATOR for e in ("ThreadPoolExecutor", "ProcessPoolExecutor",
                                                                    "Executor")},
        "concurrent.futures.as_completed": FUTURES_ITERATOR,
        **{f"pathlib.Path.{m}": DIR_LISTING for m in ("glob", "rglob", "iterdir")},
        f"{DIR_LISTING}.__iter__": "pathlib.Path",
    },
    # time.sleep(0) gives up the GIL and returns: "the thread is suspended for at least secs seconds" waits for
    # nothing at 0 (https://docs.python.org/3/library/time.html#time.sleep); a variable may hold any delay.
    # os.waitpid with WNOHANG returns at once when no child has exited yet
    # (https://docs.python.org/3/library/os.html#os.WNOHANG); pbkdf2_hmac below KDF_ROUNDS rounds (BIP-39's 2048 for a
    # seed) takes about a millisecond
    when={"time.sleep": BlocksWhen("secs", position=0, test="positive", absent=True),
          "os.waitpid": BlocksWhen("options", position=1, test="lacks", absent=True, values=("WNOHANG",)),
          "hashlib.pbkdf2_hmac": BlocksWhen("iterations", position=3, test="at_least", absent=True,
                                            values=(KDF_ROUNDS,))},
    families=(  # waiting for another thread or process: the loop stops until it answers
        Family(("subprocess.Popen.pipe",), {m: "blocking_subprocess" for m in ("read", "readline", "readlines",
                                                                                "__next__")},
               PY + "subprocess.html#subprocess.Popen.stdout (the read end of the child's pipe, a stream as open() "
               "returns: reading waits until the child writes or exits)"),
        Family(("subprocess.Popen.stdin",), {m: "blocking_subprocess" for m in ("write", "writelines", "flush")},
               PY + "subprocess.html#subprocess.Popen.stdin (the write end of the child's pipe; the warning there: "
               "\"Use communicate() rather than .stdin.write ... to avoid deadlocks due to any of the other OS pipe "
               "buffers filling up and blocking the child process\": a write waits while the pipe is full and the "
               "child busy; held-out wave 72: audio chunks fed to a transcriber process)"),
        Family(tuple(f"{m}.{q}" for m in ("queue", "multiprocessing") for q in
                     ("Queue", "LifoQueue", "PriorityQueue", "SimpleQueue", "JoinableQueue")),
               {"get": "blocking_task", "join": "blocking_task"},
               PY + "queue.html#queue.Queue.get (blocks until an item is available unless block=False)"),
        Family(("threading.Event", "threading.Condition", "threading.Barrier", "multiprocessing.Event"),
               {"wait": "blocking_task", "wait_for": "blocking_task"}, PY + "threading.html#threading.Event.wait"),
        Family(("threading.Thread", "multiprocessing.Process"), {"join": "blocking_task"},
               PY + "threading.html#threading.Thread.join"),
        Family(("concurrent.futures.Future",), {"result": "blocking_task", "exception": "blocking_task"},
               PY + "concurrent.futures.html#concurrent.futures.Future.result (waits for the call to finish)"),
        Family((FUTURES_ITERATOR,), {"__next__": "blocking_task"},
               PY + "concurrent.futures.html#concurrent.futures.Executor.map and #concurrent.futures.as_completed "
               "(each item of the iterator waits for a worker's call to finish)"),
        Family((FILE_OBJECT,), {m: "blocking_file_io" for m in (
            "read", "readline", "readlines", "readinto", "write", "writelines", "truncate", "flush")},
               PY + "io.html#io.RawIOBase (a file object's reads and writes are system calls on the file)"),
        Family(("tempfile.TemporaryDirectory",), {"cleanup": "blocking_file_io"},
               PY + "tempfile.html#tempfile.TemporaryDirectory (cleanup removes the directory and everything in it)"),
        Family(("tempfile.SpooledTemporaryFile",), {m: "blocking_file_io" for m in (
            "read", "readline", "readlines", "write", "writelines", "truncate", "flush", "rollover")},
               PY + "tempfile.html#tempfile.SpooledTemporaryFile (a real file on disk past max_size); Starlette's "
               "UploadFile.file is one: https://www.starlette.io/requests/#request-files (the async read/write "
               "methods run these in a thread pool)"),
    ),
)
