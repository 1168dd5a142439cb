"""What counts as blocking: dotted names of calls that block the calling thread, by kind.

Names are canonical (what ``import`` resolves them to): ``time.sleep``, ``requests.get``; a method
of an instance whose type the analysis knows is ``TYPE.method`` (``requests.Session.get``,
``socket.socket.recv``). Torch modules and scikit-learn estimators are recognised by type
(:func:`is_torch_module`, :func:`is_estimator`), not by name.
"""

from __future__ import annotations

HTTP_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "request")


def _names(prefix: str, *members: str) -> dict[str, str]:
    return {f"{prefix}.{m}": f"{prefix}.{m}" for m in members}


BLOCKING: dict[str, dict[str, str]] = {
    "blocking_sleep": {"time.sleep": "time.sleep"},
    "blocking_http": {
        **_names("requests", *HTTP_VERBS), **_names("requests.api", *HTTP_VERBS),
        **_names("requests.Session", *HTTP_VERBS, "send"), **_names("requests.sessions.Session", *HTTP_VERBS, "send"),
        **_names("urllib.request", "urlopen", "urlretrieve"), **_names("urllib.request.OpenerDirector", "open"),
        **_names("http.client.HTTPConnection", "request", "getresponse", "connect"),
        **_names("http.client.HTTPSConnection", "request", "getresponse", "connect"),
        **_names("urllib3", "request"), **_names("urllib3.PoolManager", "request", "urlopen"),
        **_names("httpx", *HTTP_VERBS, "stream"), **_names("httpx.Client", *HTTP_VERBS, "send", "stream"),
    },
    "blocking_file_io": {
        "builtins.open": "open", "io.open": "io.open", **_names("os", "read", "write", "fsync"),
        **_names("pathlib.Path", "open", "read_text", "write_text", "read_bytes", "write_bytes"),
        **_names("shutil", "copy", "copy2", "copyfile", "copytree", "rmtree", "move", "make_archive",
                 "unpack_archive"),
        **_names("torch", "load", "save"), **_names("numpy", "load", "save", "savez", "loadtxt", "savetxt", "fromfile"),
        **_names("pandas", "read_csv", "read_parquet", "read_json", "read_excel", "read_pickle"),
        **_names("pickle", "load", "dump"), **_names("joblib", "load", "dump"),
    },
    "blocking_socket_io": {
        **_names("socket", "create_connection", "getaddrinfo", "gethostbyname", "gethostbyaddr"),
        **_names("socket.socket", "connect", "accept", "recv", "recv_into", "recvfrom", "send", "sendall", "sendto",
                 "sendfile"),
        "select.select": "select.select",
    },
    "blocking_subprocess": {
        **_names("subprocess", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"),
        **_names("subprocess.Popen", "wait", "communicate"), **_names("os", "system", "popen", "wait", "waitpid"),
    },
    "blocking_cpu": {
        **_names("hashlib", "pbkdf2_hmac", "scrypt"), "bcrypt.hashpw": "bcrypt.hashpw",
    },
}
"""``{kind: {canonical dotted name: how to show it}}``."""

BY_NAME: dict[str, tuple[str, str]] = {name: (kind, shown) for kind, names in BLOCKING.items()
                                       for name, shown in names.items()}

METHOD_NAMES: dict[str, str] = {"read_text": "blocking_file_io", "write_text": "blocking_file_io",
                                "read_bytes": "blocking_file_io", "write_bytes": "blocking_file_io",
                                "forward": "blocking_cpu"}
"""Method names distinctive enough to flag on a receiver of unknown type (pathlib's I/O; ``forward``)."""

RETURNS: dict[str, str] = {
    "torch.load": "torch.nn.Module", "torch.jit.load": "torch.nn.Module", "torch.jit.script": "torch.nn.Module",
    "torch.jit.trace": "torch.nn.Module", "torch.compile": "torch.nn.Module",
    "joblib.load": "sklearn.base.BaseEstimator",
    "socket.create_connection": "socket.socket", "socket.socket": "socket.socket",
    "requests.session": "requests.Session", "requests.Session": "requests.Session",
    "urllib.request.build_opener": "urllib.request.OpenerDirector", "pathlib.Path": "pathlib.Path",
    "subprocess.Popen": "subprocess.Popen", "http.client.HTTPConnection": "http.client.HTTPConnection",
    "http.client.HTTPSConnection": "http.client.HTTPSConnection", "httpx.Client": "httpx.Client",
    "urllib3.PoolManager": "urllib3.PoolManager", "asyncio.get_running_loop": "asyncio.AbstractEventLoop",
    "asyncio.get_event_loop": "asyncio.AbstractEventLoop", "asyncio.new_event_loop": "asyncio.AbstractEventLoop",
}
"""What a call returns, where it is not an instance of the called name itself."""

SAME_TYPE_METHODS = frozenset({"eval", "train", "to", "cpu", "cuda", "half", "float", "double", "requires_grad_",
                               "fit"})
"""Methods of a torch module (``fit`` of an estimator) that return the object itself."""

ESTIMATOR_METHODS = frozenset({"fit", "predict", "predict_proba", "predict_log_proba", "decision_function",
                               "transform", "fit_transform", "fit_predict", "score", "kneighbors"})
TORCH_MODULE_METHODS = frozenset({"forward", "generate"})

OFFLOAD: dict[str, int] = {"asyncio.to_thread": 0, "anyio.to_thread.run_sync": 0, "trio.to_thread.run_sync": 0,
                           "starlette.concurrency.run_in_threadpool": 0, "fastapi.concurrency.run_in_threadpool": 0,
                           "asyncer.asyncify": 0}
"""Functions that run their function argument (at this index) in a worker thread: off the loop."""

OFFLOAD_METHODS: dict[str, int] = {"run_in_executor": 1, "submit": 0}
"""Methods that run their function argument in an executor (``loop.run_in_executor(ex, fn)``,
``executor.submit(fn)``), whatever the receiver."""

LOOP_CALLBACK_METHODS: dict[str, int] = {"call_soon": 0, "call_soon_threadsafe": 0, "call_later": 1, "call_at": 1,
                                         "add_done_callback": 0, "add_reader": 1, "add_writer": 1}
"""Loop methods whose function argument (at this index) runs *on* the loop, as a callback."""

INFERENCE_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                                "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})

ADVICE = {
    "blocking_sleep": "use `await asyncio.sleep(...)`",
    "blocking_http": "use an async client (aiohttp, httpx.AsyncClient) or `await asyncio.to_thread(...)`",
    "blocking_file_io": "use `await asyncio.to_thread(...)` (or aiofiles)",
    "blocking_socket_io": "use asyncio streams (`asyncio.open_connection`) or the loop's `sock_*` methods",
    "blocking_subprocess": "use `await asyncio.create_subprocess_exec(...)`",
    "blocking_cpu": "run it in `loop.run_in_executor(...)` or `asyncio.to_thread(...)` (torch releases the GIL in "
                    "its kernels), or a process pool",
}


def is_torch_module(type_name: str | None) -> bool:
    """A torch ``nn.Module`` type: ``torch.nn.Module``, ``torch.nn.Linear``, ``torch.nn.modules.*``,
    ``torch.jit.ScriptModule``."""
    if not type_name:
        return False
    if type_name in ("torch.nn.Module", "torch.jit.ScriptModule", "torch.jit.RecursiveScriptModule"):
        return True
    head, _, last = type_name.rpartition(".")
    return head.startswith("torch.nn") and last[:1].isupper() and "functional" not in head


def is_estimator(type_name: str | None) -> bool:
    """A scikit-learn estimator type (``sklearn.*`` class)."""
    return bool(type_name) and type_name.startswith("sklearn.") and type_name.rpartition(".")[2][:1].isupper()
