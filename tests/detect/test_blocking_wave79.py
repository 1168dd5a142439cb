"""check blocking: the kinds held-out wave 79 (issue 17; cameras, video and IoT behind async servers) left, fixed by kind.

M1: a module function bound onto an object at startup (``obj.name = func.__get__(obj)`` or
``types.MethodType(func, obj)``) runs when ``obj.name(...)`` is called from async code; a module global set by a
setter function (``def set_store(store): global _store; _store = store``) holds what its callers pass.
Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this test.
"""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged, flagged_package

# -- M1: functions bound onto an instance ----------------------------------------------------------------------------

_LEDGER = """
    class Ledger:
        def __init__(self, path):
            self.path = path

        def label(self):
            return self.path


    class Memo:
        def __init__(self):
            self.seen = []
"""

_EXTRAS = """
    import sqlite3
    import types


    def record_visit(self, who):
        conn = sqlite3.connect(self.path)
        conn.execute("INSERT INTO visits VALUES (?)", (who,))
        conn.commit()


    def remember(self, who):
        self.seen.append(who)


    def install(ledger, memo):
        ledger.record_visit = {ledger_binding}
        memo.record_visit = remember.__get__(memo)
"""

_APP = """
    import asyncio
    from fastapi import FastAPI
    from store import Ledger, Memo
    from extras import install

    app = FastAPI()
    ledger = None
    memo = None


    @app.on_event("startup")
    async def boot():
        global ledger, memo
        ledger = Ledger("visits.db")
        memo = Memo()
        install(ledger, memo)


    @app.post("/visit")
    async def visit(who: str):
        memo.record_visit(who)
        {call}
        return {{"ok": True}}
"""

_WRITES = {("extras.py", "blocking_db", "conn = sqlite3.connect(self.path)"),
           ("extras.py", "blocking_db", 'conn.execute("INSERT INTO visits VALUES (?)", (who,))'),
           ("extras.py", "blocking_db", "conn.commit()")}


@pytest.mark.parametrize("binding", ["record_visit.__get__(ledger)", "record_visit.__get__(ledger, Ledger)",
                                     "types.MethodType(record_visit, ledger)"])
def test_a_function_bound_onto_an_instance_runs_when_the_instance_calls_it(tmp_path, binding):
    found = flagged_package(tmp_path, {
        "store.py": _LEDGER,
        "extras.py": _EXTRAS.format(ledger_binding=binding),
        "app.py": _APP.format(call="ledger.record_visit(who)"),
    })
    assert found == _WRITES


def test_a_bound_function_handed_to_a_worker_thread_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": _LEDGER,
        "extras.py": _EXTRAS.format(ledger_binding="record_visit.__get__(ledger)"),
        "app.py": _APP.format(call="await asyncio.to_thread(ledger.record_visit, who)"),
    })
    assert found == set()  # and memo.record_visit, bound to the list append under the same name, runs no query


def test_a_global_set_by_a_setter_holds_what_its_callers_pass(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": """
            import sqlite3

            class Ledger:
                def __init__(self, path):
                    self.path = path

                def visits(self):
                    return sqlite3.connect(self.path).execute("SELECT * FROM visits").fetchall()
        """,
        "reports.py": """
            _ledger = None


            def set_ledger(ledger):
                global _ledger
                _ledger = ledger


            def visits_report():
                if not _ledger:
                    return []
                return _ledger.visits()
        """,
        "app.py": """
            from fastapi import FastAPI
            import reports
            from store import Ledger

            app = FastAPI()


            @app.on_event("startup")
            async def boot():
                reports.set_ledger(Ledger("visits.db"))


            @app.get("/visits")
            async def visits():
                return reports.visits_report()
        """,
    })
    assert found == {("store.py", "blocking_db",
                      'return sqlite3.connect(self.path).execute("SELECT * FROM visits").fetchall()')}


def test_a_global_set_by_a_setter_that_is_never_called_stays_unknown(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        from fastapi import FastAPI

        app = FastAPI()
        _ledger = None


        class Ledger:
            def visits(self):
                return sqlite3.connect("visits.db").execute("SELECT 1").fetchall()


        def set_ledger(ledger):
            global _ledger
            _ledger = ledger


        @app.get("/visits")
        async def visits():
            return _ledger.visits()
    """)
    assert found == set()


# -- M2-M8: camera, face, sensor, ROS 2 and MQTT calls ------------------------------------------------------------------

_VOCABULARY = {
    "picamera2 opens the camera": ("""
        from picamera2 import Picamera2

        async def start():
            camera = Picamera2()
            camera.start()
            return camera
    """, {("blocking_file_io", "camera = Picamera2()")}),
    "picamera2 waits for a frame": ("""
        from picamera2 import Picamera2

        camera = Picamera2()

        async def snapshot():
            still = camera.capture_array("main")
            later = camera.capture_array("main", wait=False)
            return still, later
    """, {("blocking_file_io", 'still = camera.capture_array("main")')}),
    "the IMX500 firmware upload": ("""
        from picamera2.devices import IMX500

        class Sensor:
            def __init__(self, network):
                self.chip = IMX500(network)
                self.chip.show_network_fw_progress_bar()

        async def boot():
            return Sensor("net.rpk")
    """, {("blocking_file_io", "self.chip = IMX500(network)"),
          ("blocking_file_io", "self.chip.show_network_fw_progress_bar()")}),
    "an OpenCV capture reads a frame": ("""
        import cv2

        async def grab_still(url: str):
            stream = cv2.VideoCapture(url)
            ok, frame = stream.read()
            stream.release()
            return ok and frame.shape
    """, {("blocking_file_io", "stream = cv2.VideoCapture(url)"), ("blocking_file_io", "ok, frame = stream.read()")}),
    "face_recognition encodes a frame": ("""
        import face_recognition

        async def who(frame, known):
            found = face_recognition.face_encodings(frame)
            return [face_recognition.compare_faces(known, f) for f in found]
    """, {("blocking_cpu", "found = face_recognition.face_encodings(frame)")}),
    "rclpy waits for a service reply": ("""
        import rclpy
        from rclpy.node import Node

        class Adder(Node):
            def ask(self, request):
                future = self.client.call_async(request)
                rclpy.spin_until_future_complete(self, future)
                return future.result()

        async def add(adder: Adder, request):
            rclpy.spin_once(adder, timeout_sec=0)
            return adder.ask(request)
    """, {("blocking_task", "rclpy.spin_until_future_complete(self, future)")}),
    "a DHT sensor read with retries": ("""
        import Adafruit_DHT

        async def climate(request):
            humidity, temperature = Adafruit_DHT.read_retry(Adafruit_DHT.DHT22, 4)
            return {"h": humidity, "t": temperature}
    """, {("blocking_file_io", "humidity, temperature = Adafruit_DHT.read_retry(Adafruit_DHT.DHT22, 4)")}),
    "paho loads the CA store": ("""
        import paho.mqtt.client as mqtt

        class Broker:
            def __init__(self):
                self.client = mqtt.Client()

            async def connect(self, host):
                self.client.tls_set()
                self.client.connect_async(host, 8883)
                self.client.loop_start()
                self.client.publish("hello", "world")
    """, {("blocking_file_io", "self.client.tls_set()")}),
}


@pytest.mark.parametrize("case", list(_VOCABULARY), ids=list(_VOCABULARY))
def test_a_device_or_vision_call_blocks_the_loop(tmp_path, case):
    source, expected = _VOCABULARY[case]
    assert flagged(tmp_path, source) == expected


def test_device_calls_handed_to_a_thread_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import Adafruit_DHT
        import cv2
        import face_recognition

        async def sample(url, frame):
            stream = await asyncio.to_thread(cv2.VideoCapture, url)
            ok, still = await asyncio.to_thread(stream.read)
            faces = await asyncio.to_thread(face_recognition.face_encodings, frame)
            reading = await asyncio.to_thread(Adafruit_DHT.read_retry, Adafruit_DHT.DHT22, 4)
            return ok, faces, reading
    """)
    assert found == set()


# -- M4: a with statement runs __enter__ and __exit__ --------------------------------------------------------------------

_STREAM = """
    import cv2
    import time


    class Feed:
        def __init__(self, url):
            self.url = url
            self.capture = None

        def __enter__(self):
            self.capture = cv2.VideoCapture(self.url)
            return self

        def __exit__(self, *exc):
            with open("feeds.log", "a") as log:
                log.write(self.url)

        def frames(self):
            while True:
                yield self.capture.read()[1]
"""


def test_a_with_statement_on_a_project_class_runs_its_enter_and_exit_on_the_loop(tmp_path):
    found = flagged(tmp_path, _STREAM + """

    async def watch(url: str):
        with Feed(url) as feed:
            return feed.url
    """)
    assert found == {("blocking_file_io", "self.capture = cv2.VideoCapture(self.url)"),
                     ("blocking_file_io", 'with open("feeds.log", "a") as log:')}


def test_a_with_statement_inside_a_worker_function_is_silent(tmp_path):
    found = flagged(tmp_path, _STREAM + """

    import asyncio


    def first_frame(url):
        with Feed(url) as feed:
            return next(feed.frames())


    async def watch(url: str):
        return await asyncio.to_thread(first_frame, url)
    """)
    assert found == set()


def test_a_non_blocking_file_lock_in_enter_reports_only_its_retry_sleep(tmp_path):
    found = flagged(tmp_path, """
        import time
        import portalocker


        class Held:
            def __init__(self, handle):
                self.handle = handle

            def __enter__(self):
                while True:
                    try:
                        portalocker.lock(self.handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
                        return self.handle
                    except portalocker.LockException:
                        time.sleep(0.1)

            def __exit__(self, *exc):
                portalocker.unlock(self.handle)


        async def bump(path: str):
            with open(path, "a") as handle:
                with Held(handle):
                    handle.write("1")
    """)
    assert found == {("blocking_file_io", 'with open(path, "a") as handle:'),
                     ("blocking_sleep", "time.sleep(0.1)")}


# -- F1: a module-level branch on a literal flag ---------------------------------------------------------------------

_SERVICES = """
    import cv2
    from fastapi import FastAPI

    app = FastAPI()


    class BatchService:
        def start(self, url):
            return url


    class ThreadService:
        def start(self, url):
            return cv2.VideoCapture(url)


    {flag}

    if {test}:
        service = BatchService()
    else:
        service = ThreadService()


    @app.post("/start")
    async def start(url: str):
        return service.start(url)
"""


@pytest.mark.parametrize("flag, test", [("USE_BATCH = True", "USE_BATCH"), ("THREADED = False", "not THREADED"),
                                        ("USE_BATCH = 1", "USE_BATCH")])
def test_the_untaken_side_of_a_literal_module_flag_builds_nothing(tmp_path, flag, test):
    assert flagged(tmp_path, _SERVICES.format(flag=flag, test=test)) == set()


@pytest.mark.parametrize("flag, test", [
    ("USE_BATCH = False", "USE_BATCH"),  # the other side is taken
    ("import os\n    USE_BATCH = os.environ.get('BATCH') == '1'", "USE_BATCH"),  # set at run time
    ("USE_BATCH = True\n    USE_BATCH = False", "USE_BATCH"),  # bound twice: left to both sides
])
def test_a_flag_that_takes_the_blocking_side_or_is_not_literal_is_still_read(tmp_path, flag, test):
    assert flagged(tmp_path, _SERVICES.format(flag=flag, test=test)) == {
        ("blocking_file_io", "return cv2.VideoCapture(url)")}
