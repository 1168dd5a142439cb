"""check blocking: the known kinds the held-out waves 50-52 left (issue 17, stop 48). Each blocker is found at its
line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_dbus_python_round_trip_on_the_loop_is_found(tmp_path):
    found = flagged(tmp_path, """
        import dbus

        def charge_of(path):
            bus = dbus.SystemBus()
            node = bus.get_object("org.example.Power", path)
            props = dbus.Interface(node, "org.freedesktop.DBus.Properties")
            return props.Get("org.example.Battery", "Level")

        async def poll(path):
            return charge_of(path)
    """)
    assert {text for _, text in found} == {"bus = dbus.SystemBus()",
                                           'node = bus.get_object("org.example.Power", path)',
                                           'return props.Get("org.example.Battery", "Level")'}
    assert {kind for kind, _ in found} == {"blocking_socket_io"}


def test_a_dbus_round_trip_in_a_worker_thread_and_a_signal_hookup_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import dbus

        def charge_of(path):
            node = dbus.SystemBus().get_object("org.example.Power", path)
            return dbus.Interface(node, "org.example.Battery").Level()

        async def poll(path, iface: dbus.Interface, on_change):
            iface.connect_to_signal("Changed", on_change)
            return await asyncio.to_thread(charge_of, path)
    """)
    assert found == set()


def test_a_wav_opened_from_a_path_parameter_is_found(tmp_path):
    found = flagged(tmp_path, """
        import wave

        async def duration(recording: str):
            with wave.open(recording, "rb") as clip:
                return clip.getnframes() / clip.getframerate()
    """)
    assert found == {("blocking_file_io", 'with wave.open(recording, "rb") as clip:')}


def test_a_wav_read_from_a_stream_the_caller_opened_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import wave
        from typing import IO

        async def duration(recording: IO[bytes]):
            with wave.open(recording, "rb") as clip:
                return clip.getnframes() / clip.getframerate()
    """)
    assert found == set()
