"""check blocking: a call that only creates an entry or sets an address is not a blocker where that is all it
does -- a temp directory made and kept (one mkdir, like os.makedirs), ``mkstemp``, a named temp file made for
another writer, ``connect`` on a UDP socket -- and is one where it does I/O: a temp directory entered by ``with``
or cleaned up, a named temp file written through, a TCP ``connect``. Every example
is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_mkstemp_and_a_named_temporary_file_made_for_another_writer_only_create(tmp_path):
    found = flagged(tmp_path, """
        import os
        import tempfile

        async def spool(data):
            fd, path = tempfile.mkstemp(suffix=".png")
            return fd, path

        async def spool_named(data):
            made = tempfile.NamedTemporaryFile(delete=False, suffix=".wav")
            made.close()
            return made.name

        async def spool_for_writer(writer, data):
            with tempfile.NamedTemporaryFile(delete=False, suffix=".wav") as target:
                await writer.render(data, target.name)
            return target.name
    """)
    assert found == set()


def test_a_named_temporary_file_written_or_handed_on_as_a_file_blocks(tmp_path):
    found = flagged(tmp_path, """
        import shutil
        import tempfile

        async def keep(data: bytes):
            with tempfile.NamedTemporaryFile(delete=False, suffix=".bin") as spool:
                spool.write(data)
                return spool.name

        async def copy_in(source):
            sink = tempfile.NamedTemporaryFile(delete=False)
            shutil.copyfileobj(source, sink)
            return sink.name
    """)
    assert ("blocking_file_io", 'with tempfile.NamedTemporaryFile(delete=False, suffix=".bin") as spool:') in found
    assert ("blocking_file_io", "sink = tempfile.NamedTemporaryFile(delete=False)") in found


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
