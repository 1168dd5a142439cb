"""check blocking: the known kinds the held-out waves 53 and 57 left (issue 17, stop 49). Each blocker is found at
its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package


def test_a_client_given_a_server_and_a_key_keyword_calls_it_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from trackerlib import Tracker

        async def start(settings):
            tracker = Tracker(settings.TRACKER_URL, key=settings.TRACKER_KEY)
            me = tracker.user.get("current")
            return me.name
    """)
    assert found == {("blocking_http", 'me = tracker.user.get("current")')}


def test_a_key_without_a_server_or_a_literal_key_is_no_credential(tmp_path):
    found = flagged(tmp_path, """
        from boxlib import SecretBox
        from shapelib import RequestShape

        async def seal(data, secret, url):
            box = SecretBox(key=secret)
            shape = RequestShape(url=url, key="id")
            return box.encrypt(data), shape.render()
    """)
    assert found == set()
