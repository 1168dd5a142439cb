"""The standard library's file and archive formats: compressed files, key-value stores, mailboxes, ``configparser``
files, ``codecs.open``, tar and zip extraction, directory listings and tree walks.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
older file entries -- ``open``, ``pickle``, ``shutil``, ``tarfile.open``, ``zipfile.ZipFile`` -- are in
:mod:`~faultlib.detect.serving.blocking.libraries.stdlib` and :mod:`~faultlib.detect.serving.blocking.sdks`).
Each entry names the documentation of the call: every one reads or writes a file's content in the calling thread.
Left out on purpose: readers of a file object that is already open -- ``json.load(f)``, ``marshal.load``,
``plistlib.load``, ``hashlib.file_digest``, their ``dump`` twins: the ``open`` that made ``f`` is the blocker reported,
and a second finding for the same file would be a duplicate --, in-memory parsers (``json.loads``; the one-shot
``gzip.compress``/``decompress`` of a whole payload is CPU work: :mod:`~faultlib.detect.serving.blocking.libraries.
compressors`), ``csv.reader`` (it reads whatever
iterable it is given, an in-memory ``StringIO`` as often as a file, whose ``open`` is reported already), a zip or
tar member read (the archive may be an in-memory buffer) and single-inode metadata (``os.stat``, ``os.remove``,
``os.path.exists``: one stat of one inode, which the labelling rules of ``benchmarks/README.md`` and Home Assistant's
detector below leave out).

Directory listings (stop 46): one directory's listing -- ``os.listdir``, ``os.scandir``, ``glob.glob``/``iglob``,
``Path.glob``/``iterdir`` -- counts as a tree walk does. Home Assistant's run-time detector of blocking calls in its
event loop patches ``glob.glob``, ``glob.iglob``, ``os.walk``, ``os.listdir`` and ``os.scandir`` alike and reports
"Detected blocking call to listdir inside the event loop"
(https://github.com/home-assistant/core/blob/dev/homeassistant/block_async_io.py, ``_BLOCKING_CALLS``; the fixes it
asks for: https://developers.home-assistant.io/docs/asyncio_blocking_operations/); ``pathlib``'s ``glob`` and
``iterdir`` list through ``os.scandir``/``os.listdir``, so the same detector reports them; aiofiles ships
``aiofiles.os.listdir`` and ``scandir`` to run them in a thread (https://github.com/Tinche/aiofiles, README
"aiofiles.os"; issue https://github.com/Tinche/aiofiles/issues/142). ``os.stat``, ``os.path.exists`` and their
``pathlib`` twins stay out: neither the detector nor the labels count a single stat.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

F = "blocking_file_io"
PY = "https://docs.python.org/3/library/"
_DBM = PY + "dbm.html#dbm.open (opens or creates the database file; every lookup and store then reads or writes it)"
_MAILBOXES = ("mbox", "MMDF", "Babyl", "MH", "Maildir")
_CONFIGS = ("configparser.ConfigParser", "configparser.RawConfigParser", "configparser.SafeConfigParser")
FILE_FORMATS = Vocabulary(
    calls={
        **names(F, PY + "gzip.html#gzip.open (opens the compressed file; reading decompresses it from disk)", "gzip",
                "open"),
        **names(F, PY + "bz2.html#bz2.open", "bz2", "open"),
        **names(F, PY + "lzma.html#lzma.open", "lzma", "open"),
        "gzip.GzipFile": (F, PY + "gzip.html#gzip.GzipFile (with a filename the file is opened; with only fileobj= "
                             "it wraps that object, an in-memory buffer as often as not)"),
        **names(F, PY + "shelve.html#shelve.open (a persistent dictionary backed by a dbm file)", "shelve", "open"),
        **{f"{m}.open": (F, _DBM) for m in ("dbm", "dbm.gnu", "dbm.ndbm", "dbm.dumb", "dbm.sqlite3")},
        **names(F, PY + "mailbox.html#mailbox-objects (a mailbox opens, reads and locks its files on disk)",
                "mailbox", *_MAILBOXES),
        **names(F, PY + "fileinput.html#fileinput.input (iterating it reads each file given)", "fileinput", "input"),
        **names(F, PY + "filecmp.html#filecmp.cmp (compares the files' contents when their signatures differ)",
                "filecmp", "cmp"),
        **{f"glob.{f}": (F, PY + "glob.html#glob.glob (lists the directory the pattern names; recursive=True with ** "
                            "walks the whole tree below, as os.walk)") for f in ("glob", "iglob")},
        **{f"os.{f}": (F, PY + f"os.html#os.{f} (lists one directory; Home Assistant's loop detector reports it: "
                          "https://github.com/home-assistant/core/blob/dev/homeassistant/block_async_io.py)")
           for f in ("listdir", "scandir")},
        **names(F, PY + "codecs.html#codecs.open (opens the file, as open does)", "codecs", "open"),
        "io.FileIO": (F, PY + "io.html#io.FileIO (opens the file)"),
        **{f"pathlib.Path.{m}": (F, PY + "pathlib.html#pathlib.Path.rglob (rglob, and glob with a \"**\" pattern, walk "
                                    "the whole tree below, as os.walk; a plain glob and iterdir list one directory "
                                    "through os.scandir or os.listdir)") for m in ("glob", "rglob", "iterdir")},
        "pathlib.Path.walk": (F, PY + "pathlib.html#pathlib.Path.walk (walks the whole tree below, as os.walk)"),
        "os.fwalk": (F, PY + "os.html#os.fwalk (walks the whole tree below, as os.walk)"),
        **names(F, PY + "tarfile.html#tarfile.TarFile.extractall (writes every member to disk)", "tarfile.TarFile",
                "extractall", "extract", "add"),
        **names(F, PY + "zipfile.html#zipfile.ZipFile.extractall (writes the members to disk; write reads a file from "
                   "disk into the archive)", "zipfile.ZipFile", "extractall", "extract", "write"),
    },
    when={"gzip.GzipFile": BlocksWhen("filename", position=0, test="given")},
    families=(
        Family(_CONFIGS, {"read": F}, PY + "configparser.html#configparser.ConfigParser.read (opens and parses each "
               "file named; read_string and read_dict parse what is in memory)"),
        Family(tuple(f"mailbox.{m}" for m in _MAILBOXES), {"*": F}, PY + "mailbox.html#mailbox.Mailbox (every "
               "method reads, writes, locks or flushes the mailbox's files)"),
        Family(("shelve.Shelf", "shelve.DbfilenameShelf"), {m: F for m in ("sync", "close", "get", "keys", "items",
                                                                         "values", "pop", "update", "setdefault",
                                                                         "__getitem__", "__setitem__", "__delitem__")},
               PY + "shelve.html#shelve.Shelf.sync (reads and writes the dbm file behind it; shelf[key] unpickles "
               "from it, shelf[key] = value pickles into it)"),
    ),
    returns={"tarfile.open": "tarfile.TarFile", "shelve.open": "shelve.Shelf", "mailbox.mbox": "mailbox.mbox"},
)
