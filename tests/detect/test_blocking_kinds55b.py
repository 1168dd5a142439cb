"""check blocking: the known kinds older held-out waves left, second part (issue 17, stop 55). Each blocker is found
at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

_GENAI = """
    from google import genai

    client = genai.Client()


    async def answer(question):
        session = client.chats.create(model="gemini-2.5-flash")
        stored = client.caches.create(model="gemini-2.5-flash", config={"contents": [question]})
        sent = client.files.upload(file="notes.txt")
        return session.send_message(question), stored, sent
"""


def test_genai_namespace_requests_are_found_and_a_local_chat_is_not(tmp_path):
    assert flagged(tmp_path, _GENAI) == {
        ("blocking_http", 'stored = client.caches.create(model="gemini-2.5-flash", config={"contents": [question]})'),
        ("blocking_http", 'sent = client.files.upload(file="notes.txt")'),
        ("blocking_http", "return session.send_message(question), stored, sent"),
    }
