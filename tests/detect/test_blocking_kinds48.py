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


def test_a_fileio_over_a_path_opens_the_file(tmp_path):
    found = flagged(tmp_path, """
        import io

        async def keep(log_path, line):
            sink = io.FileIO(log_path, "a")
            sink.write(line)
    """)
    assert ("blocking_file_io", 'sink = io.FileIO(log_path, "a")') in found


def test_a_fileio_over_a_duplicated_descriptor_opens_nothing(tmp_path):
    found = flagged(tmp_path, """
        import io
        import os

        class Echo:
            def __init__(self):
                self.terminal = os.dup(1)

            async def attach(self):
                self.sink = io.FileIO(self.terminal, "w")
                spare = io.FileIO(os.dup(2), "w")
                return spare
    """)
    assert found == set()


def test_a_langchain_document_loader_still_reads_its_file(tmp_path):
    found = flagged(tmp_path, """
        from langchain_community.document_loaders import TextLoader

        async def pages(path):
            return TextLoader(path).load()
    """)
    assert found == {("blocking_file_io", "return TextLoader(path).load()")}


def test_reviving_a_langchain_object_from_a_streamed_dict_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from langchain_core.load import load, loads

        async def revive(chunks):
            return [load(c) for c in chunks] + [loads('{"lc": 1}')]
    """)
    assert found == set()


def test_a_model_class_built_from_a_hub_id_loads_its_weights(tmp_path):
    found = flagged(tmp_path, """
        from sentence_transformers import CrossEncoder

        async def rank(query, docs):
            judge = CrossEncoder("cross-encoder/ms-marco-MiniLM-L-6-v2")
            return judge, query, docs
    """)
    assert {kind for kind, _ in found} == {"blocking_file_io"}


def test_an_agent_naming_a_hosted_model_loads_nothing(tmp_path):
    found = flagged(tmp_path, """
        from agents import Agent
        from pydantic_ai import Agent as TypedAgent

        async def helpers():
            return Agent(name="poet", model="anthropic/claude-3-5-sonnet"), TypedAgent(model="openai/gpt-4o")
    """)
    assert found == set()


def test_a_class_level_scoped_session_behind_classvar_and_an_alias_is_a_session(tmp_path):
    found = flagged(tmp_path, """
        from typing import ClassVar

        from sqlalchemy.orm import DeclarativeBase, Session, scoped_session

        Shared = scoped_session[Session]

        class Base(DeclarativeBase):
            pass

        class Order(Base):
            __tablename__ = "orders"
            session: ClassVar[Shared]

        async def open_orders(query):
            return Order.session.scalars(query).all()
    """)
    assert found == {("blocking_db", "return Order.session.scalars(query).all()")}


def test_a_class_level_async_session_and_a_list_of_sessions_are_silent(tmp_path):
    found = flagged(tmp_path, """
        from typing import ClassVar

        from sqlalchemy.ext.asyncio import AsyncSession, async_scoped_session
        from sqlalchemy.orm import Session

        class Ledger:
            session: ClassVar[async_scoped_session[AsyncSession]]
            spares: ClassVar[list[Session]] = []

        async def entries(query):
            Ledger.spares.append(None)
            return (await Ledger.session.scalars(query)).all()
    """)
    assert found == set()


def test_a_loop_over_a_literal_table_of_paths_opens_each_path(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        BUILTIN = Path("/etc/app/defaults.yaml")

        async def settings(folder):
            folder = Path(folder)
            layers = [BUILTIN, folder / "local.yaml"]
            merged = []
            for layer in layers:
                with layer.open(encoding="utf-8") as stream:
                    merged.append(stream.read())
            return merged
    """)
    assert ("blocking_file_io", 'with layer.open(encoding="utf-8") as stream:') in found


def test_a_loop_over_a_literal_table_of_buffers_or_mixed_rows_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import io
        from pathlib import Path

        async def pack(text, folder):
            for sink in [io.StringIO(), io.StringIO()]:
                sink.write(text)
            for item in [Path(folder), "notes.txt"]:
                item.open()
    """)
    assert found == set()
