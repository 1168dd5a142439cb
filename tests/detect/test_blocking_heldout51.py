"""check blocking: the kinds held-out wave 51 (issue 17; a chat UI over LangChain and Redis, a document-conversion
server, an LLM fine-tuning toolkit's API, a RAG server with session-decorated repositories, Modal GPU endpoints)
left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- a decorator that calls the function with a session it opened types that parameter --------------------------------

_SESSION_DECORATOR = """
    from contextlib import contextmanager
    from functools import wraps
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    Maker = sessionmaker(bind=create_engine("sqlite:///notes.db"))

    @contextmanager
    def opened():
        s = Maker()
        try:
            yield s
        finally:
            s.close()
"""


def test_a_query_in_a_function_given_its_session_by_a_decorator_is_a_database_call(tmp_path):
    found = flagged(tmp_path, _SESSION_DECORATOR + """
    def in_session(fn):
        @wraps(fn)
        def run(*args, **kwargs):
            with opened() as s:
                return fn(s, *args, **kwargs)
        return run

    @in_session
    def notes_of(s, owner):
        return s.query(Note).filter_by(owner=owner).all()

    async def list_notes(owner):
        return notes_of(owner)
    """)
    assert ("blocking_db", "return s.query(Note).filter_by(owner=owner).all()") in found


def test_a_decorator_that_only_forwards_the_arguments_types_nothing(tmp_path):
    found = flagged(tmp_path, _SESSION_DECORATOR + """
    def logged(fn):
        @wraps(fn)
        def run(*args, **kwargs):
            with opened() as s:
                s.info["calls"] = 1
            return fn(*args, **kwargs)
        return run

    @logged
    def notes_of(s, owner):
        return s.query(Note).filter_by(owner=owner).all()

    async def list_notes(store, owner):
        return notes_of(store, owner)
    """)
    assert not any("s.query" in line for _, line in found)
