"""check blocking: a call that only creates an entry or sets an address is not a blocker where that is all it
does -- a temp file or directory made and not used here (one inode, like os.makedirs), ``mkstemp``, ``connect`` on
a UDP socket, an archive opened over an in-memory buffer -- and is one where it does I/O: a temp file entered by
``with`` or written, a temp directory's ``cleanup``, a TCP ``connect``, an archive opened from a path. Every
example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_temp_file_made_for_an_async_writer_is_silent_and_one_written_here_blocks(tmp_path):
    found = flagged(tmp_path, """
        import os
        import tempfile

        import aiofiles

        async def spool(data):
            made = tempfile.NamedTemporaryFile(delete=False, suffix=".wav")
            async with aiofiles.open(made.name, "wb") as out:
                await out.write(data)
            fd, path = tempfile.mkstemp(suffix=".png")
            return made.name, fd, path

        async def spool_here(data):
            with tempfile.NamedTemporaryFile(mode="wb", delete=False) as handle:
                handle.write(data)
            kept = tempfile.TemporaryFile()
            kept.write(data)
            return handle.name, kept
    """)
    assert found == {("blocking_file_io", 'with tempfile.NamedTemporaryFile(mode="wb", delete=False) as handle:'),
                     ("blocking_file_io", "kept = tempfile.TemporaryFile()")}


def test_a_temp_directory_blocks_when_entered_or_cleaned_up_not_when_kept(tmp_path):
    found = flagged(tmp_path, """
        import tempfile

        class Renderer:
            def __init__(self):
                self.scratch = tempfile.TemporaryDirectory()

            async def close(self):
                self.scratch.cleanup()

        async def render(scene):
            with tempfile.TemporaryDirectory() as folder:
                return folder + scene

        async def make():
            return Renderer()
    """)
    assert found == {("blocking_file_io", "self.scratch.cleanup()"),
                     ("blocking_file_io", "with tempfile.TemporaryDirectory() as folder:")}


def test_connect_on_a_udp_socket_is_silent_and_on_a_tcp_socket_blocks(tmp_path):
    found = flagged(tmp_path, """
        import socket

        async def own_address():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("192.0.2.1", 80))
                return probe.getsockname()[0]

        async def reach(host):
            link = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            link.connect((host, 80))
            return link
    """)
    assert found == {("blocking_socket_io", "link.connect((host, 80))")}


def test_an_archive_opened_over_memory_is_silent_and_one_opened_from_a_path_blocks(tmp_path):
    found = flagged(tmp_path, """
        import io
        import zipfile

        async def pack(payload: bytes):
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                archive.writestr("data.bin", payload)
            return buffer.getvalue()

        async def unpack(path):
            with zipfile.ZipFile(path) as archive:
                return archive.namelist()
    """)
    assert found == {("blocking_file_io", "with zipfile.ZipFile(path) as archive:")}
