"""Parsers that read a media or torrent file to give its metadata: hachoir (``createParser``/``extractMetadata``),
torrentool (``Torrent.from_file``) and python-magic's file-type sniffing (``magic.from_file``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 35 (a Telegram bot reading a video's duration before uploading it). Both are pure Python and read the
file in the calling thread: ``createParser(path)`` opens the file and probes its format, ``extractMetadata`` walks the
parsed fields (for a video, its container headers), ``Torrent.from_file`` reads and bdecodes the whole ``.torrent``.
``magic.from_file(path, mime=True)`` (held-out wave 37: a RAG API typing an upload before choosing its loader) has
libmagic open the file and read its head to match the magic database. Left out: torrentool's
``Torrent.from_string`` and ``magic.from_buffer`` (they read bytes already in memory).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

F = "blocking_file_io"
HACHOIR = ("https://hachoir.readthedocs.io/en/latest/developer.html (parser = createParser(filename) opens the file "
           "and guesses its format; metadata = extractMetadata(parser) reads the fields it needs from the stream)")
TORRENTOOL = ("https://torrentool.readthedocs.io/en/latest/api.html (Torrent.from_file(filepath): \"Alternative "
              "constructor to get Torrent object from file\"; it reads and decodes the file)")

MAGIC = ("https://github.com/ahupp/python-magic#usage (magic.from_file('testdata/test.pdf') identifies the file "
         "from its content: libmagic's magic_file opens and reads it)")

MEDIA_METADATA = Vocabulary(
    calls={
        **{name: (F, HACHOIR) for name in ("hachoir.parser.createParser", "hachoir.parser.guess.createParser",
                                           "hachoir.metadata.extractMetadata",
                                           "hachoir.metadata.metadata.extractMetadata")},
        **{f"{t}.from_file": (F, TORRENTOOL) for t in ("torrentool.api.Torrent", "torrentool.torrent.Torrent")},
        **{name: (F, MAGIC) for name in ("magic.from_file", "magic.Magic.from_file")},
    },
)
