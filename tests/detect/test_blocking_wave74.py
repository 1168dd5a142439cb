"""check blocking: the kinds held-out wave 74 (issue 17; MLOps serving -- model registries, S3 model downloads,
feature lookups, Kafka scoring, drift monitors) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package, joined

# -- attributes set on the instance a factory classmethod builds in a local ------------------------------------------

_FACTORY = """
    import paho.mqtt.client as mqtt
    from xgboost import XGBClassifier


    class Scorer:
        @classmethod
        async def open(cls, model_path, broker):
            made = cls()
            made.booster = XGBClassifier()
            made.booster.load_model(model_path)
            made.events = mqtt.Client()
            made.events.connect(broker, port=1883)
            return made
"""


def test_a_model_a_factory_loads_on_its_local_instance_blocks_there(tmp_path):
    found = flagged(tmp_path, _FACTORY)
    assert ("blocking_file_io", "made.booster.load_model(model_path)") in found
    assert ("blocking_socket_io", "made.events.connect(broker, port=1883)") in found


def test_the_factory_set_model_is_the_instance_attribute_of_the_other_methods(tmp_path):
    found = flagged(tmp_path, joined(_FACTORY, """
        class Service:
            def __init__(self, scorer: Scorer):
                self.scorer = scorer

            async def handle(self, rows):
                return self.scorer.booster.predict_proba(rows)
    """))
    assert ("blocking_cpu", "return self.scorer.booster.predict_proba(rows)") in found


def test_a_local_of_another_class_types_nothing_of_the_factory_class(tmp_path):
    found = flagged(tmp_path, """
        from xgboost import XGBClassifier


        class Settings:
            pass


        class Scorer:
            def __init__(self, remote):
                self.booster = remote

            @classmethod
            async def open(cls, remote):
                options = Settings()
                options.booster = XGBClassifier()
                return cls(remote)

            async def score(self, rows):
                return await self.booster.predict(rows)
    """)
    assert not any("predict" in line for _, line in found)


def test_a_classmethod_built_under_the_name_self_types_the_async_predict(tmp_path):
    found = flagged(tmp_path, """
        from lightgbm import Booster


        class Predictor(object):
            @classmethod
            async def create(cls, path):
                self = Predictor()
                self.trees = Booster(model_file=path)
                return self

            async def predict(self, frame):
                return self.trees.predict(frame)
    """)
    assert ("blocking_cpu", "return self.trees.predict(frame)") in found


# -- compiled tree runtimes: lleaves, tl2cgen ----------------------------------------------------------------------------

def test_a_compiled_tree_model_is_loaded_compiled_and_run_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import lleaves
        import tl2cgen


        async def warm(model_txt, cache, libpath):
            fast = lleaves.Model(model_file=model_txt)
            fast.compile(cache=cache)
            native = tl2cgen.Predictor(libpath)
            return fast, native


        async def score(model_txt, rows, libpath, dmat):
            fast = lleaves.Model(model_file=model_txt)
            native = tl2cgen.Predictor(libpath)
            return fast.predict(rows), native.predict(dmat)
    """)
    assert {("blocking_file_io", "fast = lleaves.Model(model_file=model_txt)"),
            ("blocking_cpu", "fast.compile(cache=cache)"),
            ("blocking_file_io", "native = tl2cgen.Predictor(libpath)"),
            ("blocking_cpu", "return fast.predict(rows), native.predict(dmat)")} <= found


def test_a_compiled_tree_model_handed_to_a_worker_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import lleaves


        def _load_and_run(model_txt, rows):
            fast = lleaves.Model(model_file=model_txt)
            fast.compile()
            return fast.predict(rows)


        async def score(model_txt, rows):
            return await asyncio.to_thread(_load_and_run, model_txt, rows)
    """)
    assert found == set()


# -- an import of a module several services side by side define ---------------------------------------------------------

_DOWNLOADS = """
    import boto3
    import joblib


    def fetch(bucket, key, target):
        s3 = boto3.client("s3")
        with open(target, "wb") as handle:
            s3.download_fileobj(bucket, key, handle)
        return joblib.load(target)
"""
_QUIET = """
    def fetch(bucket, key, target):
        return {"bucket": bucket, "key": key, "target": target}
"""
_MAIN = """
    from contextlib import asynccontextmanager

    from fastapi import FastAPI

    from app.store import fetch


    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.model = fetch("models", "ranker.joblib", "/tmp/ranker.joblib")
        yield


    app = FastAPI(lifespan=lifespan)
"""


def test_each_service_imports_its_own_namesake_module(tmp_path):
    found = flagged_package(tmp_path, {
        "alpha/app/main.py": _MAIN, "alpha/app/store.py": _QUIET,
        "beta/app/main.py": _MAIN, "beta/app/store.py": _DOWNLOADS,
    })
    assert ("beta/app/store.py", "blocking_http", 's3 = boto3.client("s3")') in found
    assert ("beta/app/store.py", "blocking_http", "s3.download_fileobj(bucket, key, handle)") in found
    assert ("beta/app/store.py", "blocking_file_io", "return joblib.load(target)") in found


def test_a_namesake_no_async_code_of_its_own_service_reaches_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "alpha/app/main.py": _MAIN, "alpha/app/store.py": _QUIET,
        "beta/app/main.py": """
            from fastapi import FastAPI

            from app.store import fetch

            app = FastAPI()


            @app.post("/reload")
            def reload():
                return fetch("models", "ranker.joblib", "/tmp/ranker.joblib")
        """, "beta/app/store.py": _DOWNLOADS,
        "gamma/app/main.py": _MAIN, "gamma/app/store.py": _QUIET,
    })
    assert found == set()


def test_an_import_inside_a_package_names_the_installed_library_not_a_namesake_subpackage(tmp_path):
    # tool/ is a package (its __init__.py): `import git` in tool/core/git.py is GitPython (absolute import,
    # PEP 328), never tool/git/ -- only a folder that is no package is a root a service runs from
    found = flagged_package(tmp_path, {
        "tool/__init__.py": "", "tool/core/__init__.py": "", "tool/git/__init__.py": "VERSION = 1\n",
        "tool/core/git.py": """
            import git


            def dirty(path):
                return git.Repo(path).is_dirty()
        """,
        "tool/api.py": """
            from fastapi import FastAPI

            from tool.core import git as repo_state

            app = FastAPI()


            @app.get("/dirty")
            async def dirty(path: str):
                return repo_state.dirty(path)
        """,
    })
    assert any(path == "tool/core/git.py" and line == "return git.Repo(path).is_dirty()" for path, _, line in found), \
        f"GitPython's is_dirty not found: {sorted(found)}"


# -- closing a redis-py client ------------------------------------------------------------------------------------------

def test_closing_a_redis_client_in_the_shutdown_is_silent_its_ping_blocks(tmp_path):
    found = flagged(tmp_path, """
        from contextlib import asynccontextmanager

        import redis
        from fastapi import FastAPI

        pool = redis.ConnectionPool(host="cache", port=6379)
        cache = redis.Redis(connection_pool=pool)


        @asynccontextmanager
        async def lifespan(app: FastAPI):
            cache.ping()
            yield
            cache.close()


        app = FastAPI(lifespan=lifespan)
    """)
    assert found == {("blocking_db", "cache.ping()")}
