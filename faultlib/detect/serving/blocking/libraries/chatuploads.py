"""Attachments built from a path: ``discord.File("report.txt")`` opens the file in its constructor.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). discord.py's
``File(fp, filename=None, ...)`` takes "a file-like object opened in binary mode and read mode or a filename
representing a file in the hard drive to open" (https://discordpy.readthedocs.io/en/stable/api.html#discord.File);
given a path it runs ``open(fp, 'rb')`` in ``__init__`` (``discord/file.py``), in the calling thread: on the loop
when a command or an event handler builds the attachment. Given a stream (``io.BytesIO``, or a file the caller
opened) it only wraps it (:data:`~faultlib.detect.serving.blocking.sites.COPIES`). The forks nextcord and disnake
keep the same class. Found by held-out wave 56 (a Discord bot sending images and error logs it had just written) and
listed at stop 49.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

F = "blocking_file_io"
DISCORD_FILE = ("https://discordpy.readthedocs.io/en/stable/api.html#discord.File (fp: a file-like object or a "
                "filename of a file on the hard drive to open; discord/file.py opens a path with open(fp, 'rb') in "
                "the constructor)")

FILE_CLASSES = ("discord.File", "discord.file.File", "nextcord.File", "nextcord.file.File", "disnake.File",
                "disnake.file.File")
"""discord.py's attachment class and the forks' same class, as imported and where they are defined."""

CHAT_UPLOADS = Vocabulary(calls={name: (F, DISCORD_FILE) for name in FILE_CLASSES})
