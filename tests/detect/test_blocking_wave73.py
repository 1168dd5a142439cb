"""check blocking: the kinds held-out wave 73 (issue 17; computer-vision, OCR and Office-conversion services behind
async endpoints) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test; the libraries are recognised by their imported names."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged, joined

# -- a model class built from a weights file, then called directly: model(image) runs the model -------------------

_DETECTOR = """
    import asyncio

    from fastapi import FastAPI, UploadFile
    from ultralytics import YOLO

    app = FastAPI()

    try:
        net = YOLO("weights/parts.pt")
    except OSError as missing:
        raise SystemExit(f"no weights: {missing}")


    @app.post("/inspect")
    async def inspect(upload: UploadFile):
        picture = await upload.read()
        {call}
        return {"boxes": len(found)}
"""


@pytest.mark.parametrize("call, on_loop", [("found = net(picture)", True),
                                           ("found = await asyncio.to_thread(net, picture)", False)],
                         ids=["called-on-the-loop", "handed-to-a-thread"])
def test_calling_a_model_built_from_a_weights_file_is_reported(tmp_path, call, on_loop):
    found = flagged(tmp_path, _DETECTOR.replace("{call}", call))
    assert (("blocking_cpu", "found = net(picture)") in found) is on_loop


def test_calling_an_object_built_from_a_settings_file_is_silent(tmp_path):
    source = """
        from fastapi import FastAPI
        from jinja2 import Template

        app = FastAPI()
        page = Template("templates/report.html")


        @app.get("/report")
        async def report(title: str):
            return page(title=title)
    """
    assert flagged(tmp_path, source) == set()


# -- a list an instance builds by comprehension: its loop variable is an element -------------------------------------

_POOL = """
    import subprocess
    from contextlib import asynccontextmanager

    from fastapi import FastAPI


    class Converter:
        def __init__(self, port):
            self.port = port
            self.child = None

        def launch(self):
            self.child = subprocess.Popen(["converter-daemon", "--port", str(self.port)])

        def halt(self):
            if self.child is not None:
                self.child.terminate()
                self.child.wait(timeout=20)


    class Pool:
        def __init__(self, ports):
            self.members = {members}

        def halt_all(self):
            for member in self.members:
                member.halt()


    @asynccontextmanager
    async def lifespan(app):
        pool = Pool([7001, 7002])
        yield
        {stop}


    app = FastAPI(lifespan=lifespan)
"""


@pytest.mark.parametrize("members", ["[Converter(p) for p in ports]", "[Converter(p) for p in ports if p]"])
def test_waiting_for_children_of_a_comprehension_built_pool_in_the_lifespan_is_reported(tmp_path, members):
    source = _POOL.replace("{members}", members).replace("{stop}", "pool.halt_all()")
    assert ("blocking_subprocess", "self.child.wait(timeout=20)") in flagged(tmp_path, source)


def test_a_pool_stopped_in_a_thread_is_silent(tmp_path):
    source = _POOL.replace("{members}", "[Converter(p) for p in ports]").replace(
        "{stop}", "await asyncio.to_thread(pool.halt_all)").replace("import subprocess", "import asyncio\n    import subprocess")
    assert ("blocking_subprocess", "self.child.wait(timeout=20)") not in flagged(tmp_path, source)


_JOBS = """
    import subprocess

    from fastapi import FastAPI

    app = FastAPI()


    class Job:
        def __init__(self, name):
            self.proc = subprocess.Popen(["worker", name])

        def finish(self):
            self.proc.wait()


    class Note:
        def finish(self):
            return "noted"
"""


def test_a_local_list_built_by_comprehension_types_its_loop_variable(tmp_path):
    source = joined(_JOBS, """
        @app.post("/batch")
        async def batch(names: list[str]):
            jobs = [Job(n) for n in names]
            for job in jobs:
                job.finish()
            return {"done": len(jobs)}
    """)
    assert ("blocking_subprocess", "self.proc.wait()") in flagged(tmp_path, source)


def test_a_comprehension_of_mixed_classes_gives_no_element_type(tmp_path):
    source = joined(_JOBS, """
        @app.post("/batch")
        async def batch(names: list[str]):
            jobs = [Job(n) if n.startswith("run") else Note() for n in names]
            jobs = [Note() for n in names]
            for job in jobs:
                job.finish()
            return {"done": len(jobs)}
    """)
    assert ("blocking_subprocess", "self.proc.wait()") not in flagged(tmp_path, source)


# -- a class parameter's default names a library class: calling the parameter constructs it ------------------------

_WRAPPER = """
    from fastapi import FastAPI
    from ultralytics import YOLO

    app = FastAPI()


    class Tracker:
        def __init__(self, backend=YOLO, weights="track.pt"):
            self.net = backend(weights)


    @app.post("/track")
    async def track():
        {build}
        return {"ready": True}
"""


def test_constructing_a_library_model_class_through_its_parameter_default_is_reported(tmp_path):
    found = flagged(tmp_path, _WRAPPER.replace("{build}", "tracker = Tracker()"))
    assert ("blocking_file_io", "self.net = backend(weights)") in found


def test_a_local_bound_to_a_library_model_class_constructs_it(tmp_path):
    source = """
        from fastapi import FastAPI
        from ultralytics import YOLO

        app = FastAPI()


        @app.post("/load")
        async def load(path: str):
            maker = YOLO
            model = maker(path)
            return {"classes": len(model.names)}
    """
    assert ("blocking_file_io", "model = maker(path)") in flagged(tmp_path, source)


def test_a_parameter_defaulting_to_a_library_class_built_in_a_thread_is_silent(tmp_path):
    source = _WRAPPER.replace("{build}", "tracker = await asyncio.to_thread(Tracker)").replace(
        "from fastapi import FastAPI", "import asyncio\n    from fastapi import FastAPI")
    assert flagged(tmp_path, source) == set()


def test_a_parameter_defaulting_to_a_plain_library_class_is_silent(tmp_path):
    source = """
        from collections import OrderedDict

        from fastapi import FastAPI

        app = FastAPI()


        def table(pairs, factory=OrderedDict):
            return factory(pairs)


        @app.post("/table")
        async def build(pairs: list[tuple[str, str]]):
            return table(pairs)
    """
    assert flagged(tmp_path, source) == set()


# -- LibreOffice through PyUNO: connecting, loading, exporting and closing wait on the office -----------------------

_OFFICE = """
    import uno
    from fastapi import FastAPI

    app = FastAPI()


    class Office:
        def __init__(self, port):
            here = uno.getComponentContext()
            resolver = here.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", here)
            remote = resolver.resolve(f"uno:socket,host=localhost,port={port};urp;StarOffice.ComponentContext")
            self.desktop = remote.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", remote)
            self.doc = None

        def to_pdf(self, source_url, target_url):
            self.doc = self.desktop.loadComponentFromURL(source_url, "_blank", 0, ())
            self.doc.storeToURL(target_url, ())
            self.doc.close(True)


    def run_job(source_url, target_url):
        Office(2002).to_pdf(source_url, target_url)


    @app.post("/convert")
    async def convert(source_url: str, target_url: str):
        {call}
        return {"ok": True}
"""


def test_uno_calls_on_the_remote_office_are_reported(tmp_path):
    found = flagged(tmp_path, _OFFICE.replace("{call}", "run_job(source_url, target_url)"))
    assert {("blocking_socket_io", 'remote = resolver.resolve(f"uno:socket,host=localhost,port={port};urp;'
                                   'StarOffice.ComponentContext")'),
            ("blocking_socket_io", 'self.doc = self.desktop.loadComponentFromURL(source_url, "_blank", 0, ())'),
            ("blocking_socket_io", "self.doc.storeToURL(target_url, ())"),
            ("blocking_socket_io", "self.doc.close(True)")} <= found
    assert not any("createInstanceWithContext" in line for _, line in found)  # the local resolver: no office yet


def test_uno_conversion_in_a_worker_thread_is_silent(tmp_path):
    source = _OFFICE.replace("{call}", "await asyncio.to_thread(run_job, source_url, target_url)")
    assert flagged(tmp_path, source.replace("import uno", "import asyncio\n    import uno")) == set()


def test_close_on_an_unrelated_object_is_silent(tmp_path):
    source = """
        import io

        from fastapi import FastAPI

        app = FastAPI()


        @app.post("/echo")
        async def echo(text: str):
            buffer = io.StringIO(text)
            value = buffer.getvalue()
            buffer.close()
            return {"text": value}
    """
    assert flagged(tmp_path, source) == set()

