"""What counts as blocking: the one vocabulary of calls that block the calling thread, each with its source.

Names are canonical (what ``import`` resolves them to): ``time.sleep``, ``requests.get``; a method of an
instance whose type the analysis knows is ``TYPE.method`` (``requests.Session.get``,
``sqlalchemy.orm.Session.execute``), and a sub-client reached by attributes extends the type
(``openai.OpenAI.chat.completions.create``). A :class:`Vocabulary` holds

* ``calls``: ``{dotted name: (kind, source URL)}``, exact names;
* ``families``: :class:`Family` rules for client types whose every network method blocks (a sync redis
  client, a boto3 client) or whose model calls do (a LangChain runnable, a Hugging Face pipeline);
* ``returns``: ``{call: type}`` -- what a factory returns, so the methods of its result are known
  (``sqlite3.connect`` -> ``sqlite3.Connection``).

Third-party packages extend it through the entry-point group ``faultlib.blocking_calls``: each entry
point names a :class:`Vocabulary` (or a function returning one); faultlib's own tables are registered
there the same way (``pyproject.toml``) and are also loaded directly from their registry, one module per
library family (:mod:`faultlib.detect.serving.blocking.libraries`), so an uninstalled checkout still has
them. :func:`vocabulary` merges them once per process. Torch modules and scikit-learn estimators are
recognised by type (:func:`is_torch_module`, :func:`is_estimator`).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

from faultlib.detect.serving.blocking.class_spellings import described_classes, known_spelling
from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary  # noqa: F401 (the plugin API)
from faultlib.detect.serving.blocking.libraries import (  # noqa: F401 (re-exported: older entry-point paths)
    BUILTIN, CLOUD_AND_TASKS, DATABASES, HTTP_CLIENTS, MODELS, STDLIB)

ENTRY_POINT_GROUP = "faultlib.blocking_calls"

METHOD_RETURNS: dict[str, str] = {"delay": "celery.result.AsyncResult", "apply_async": "celery.result.AsyncResult",
                                  "AsyncResult": "celery.result.AsyncResult"}
"""Method names whose result has a known type whatever the receiver (Celery's ``task.delay(...)``)."""

METHOD_NAMES: dict[str, str] = {"read_text": "blocking_file_io", "write_text": "blocking_file_io",
                                "read_bytes": "blocking_file_io", "write_bytes": "blocking_file_io",
                                "forward": "blocking_cpu", "extract_text": "blocking_cpu",
                                "embed_query": "blocking_http", "embed_documents": "blocking_http"}
"""Method names distinctive enough to flag on a receiver of unknown type (pathlib's I/O; ``forward``; a PDF page's
``extract_text`` in pypdf/pdfplumber: https://pypdf.readthedocs.io/en/stable/user/extract-text.html; LangChain's
sync ``Embeddings`` interface, whose async twins are ``aembed_query``/``aembed_documents``: an embedding API call or
a local model's forward, https://python.langchain.com/api_reference/core/embeddings/langchain_core.embeddings.
embeddings.Embeddings.html)."""

FLUSHING_METHODS = frozenset({"commit", "flush"})
FLUSH_EVENTS = frozenset({"before_insert", "after_insert", "before_update", "after_update", "before_delete",
                          "after_delete", "before_flush", "after_flush", "after_flush_postexec", "before_commit"})
"""SQLAlchemy mapper and session events run inside the flush of ``session.commit()``/``flush()``, in the calling
thread (https://docs.sqlalchemy.org/en/20/orm/events.html#mapper-events: "called ... within the flush process")."""

UNPICKLED_ITEM = "pickle.UnpickledItem"
"""The type this analysis gives an item of what ``joblib.load``/``pickle.load`` returned (typed as an estimator,
``libraries.models``): a pack of a fitted model and its encoders, ``pack["model"]``. Its type is not known, so only
the methods that run a loaded model (:data:`MODEL_METHODS`: ``predict``, ``predict_proba``...) count on it, never an
estimator's ``transform``/``fit`` (a label encoder's ``transform`` of one value). Held-out wave 54."""

ATTRIBUTE_TYPES: dict[str, dict[str, str]] = {
    **{name: {"file": "tempfile.SpooledTemporaryFile"} for name in (
        "fastapi.UploadFile", "fastapi.datastructures.UploadFile", "starlette.datastructures.UploadFile")},
    "sqlalchemy.orm.DeclarativeBase": {"metadata": "sqlalchemy.MetaData"},
    "IndexedRedis.IndexedRedisModel": {"objects": "IndexedRedis.IndexedRedisQuery"},  # libraries.redisorms
    # https://langchain-mongodb.readthedocs.io/ MongoDBAtlasVectorSearch(collection, ...): the pymongo Collection it
    # was given, kept as ``_collection`` (a subclass's own queries run on it; held-out wave 71)
    **{s: {"_collection": "pymongo.collection.Collection"} for s in (
        "langchain_mongodb.MongoDBAtlasVectorSearch", "langchain_mongodb.vectorstores.MongoDBAtlasVectorSearch",
        "langchain_community.vectorstores.MongoDBAtlasVectorSearch")},
    **{m: {"env": "lmdb.Environment"} for m in ("lmdbm.Lmdb", "lmdbm.lmdbm.Lmdb")},  # libraries.lmdbstores
    "diffusers.utils.BaseOutput": {k: "diffusers.utils.BaseOutput.images" for k in ("images", "[]")},
    "diffusers.utils.BaseOutput.images": {"[]": "PIL.Image.Image"},
    "matplotlib.axes.Axes": {"figure": "matplotlib.figure.Figure"},
    **{app: {"control": "celery.app.control.Control", "tasks": "celery.app.registry.TaskRegistry"} for app in (
        "celery.Celery", "celery.app.Celery", "celery.app.base.Celery")},
    "celery.app.registry.TaskRegistry": {"[]": "celery.app.task.Task"},
    "subprocess.Popen": {"stdout": "subprocess.Popen.pipe", "stderr": "subprocess.Popen.pipe",
                         "stdin": "subprocess.Popen.stdin"},
    "subprocess.Popen.stdin": {"buffer": "subprocess.Popen.stdin"},  # a text pipe's binary buffer: the same pipe
    "tensorflow.saved_model.Loaded": {"signatures": "tensorflow.saved_model.Loaded.signatures"},  # libraries.models
    "tensorflow.saved_model.Loaded.signatures": {"[]": "tensorflow.types.experimental.ConcreteFunction"},
    "pathlib.Path": {"parent": "pathlib.Path", "parents": "pathlib.Path.parents"},
    "pathlib.Path.parents": {"[]": "pathlib.Path"},
    "pydub.AudioSegment": {"[]": "pydub.AudioSegment"},  # segment[:1000]: a slice is a segment (sdks.py)
    "importlib.machinery.ModuleSpec": {"loader": "importlib.machinery.SourceFileLoader"},
    **{commit: {"tree": "git.Tree"} for commit in ("git.Commit", "git.objects.commit.Commit")},
    **{repo: {"index": "git.IndexFile", "git": "git.cmd.Git"} for repo in ("git.Repo", "git.repo.Repo", "git.repo.base.Repo")},
    "git.Diff": {"a_blob": "git.Blob", "b_blob": "git.Blob"},
    "sklearn.base.BaseEstimator": {"[]": UNPICKLED_ITEM},
    **{ext: {"session": "sqlalchemy.orm.scoped_session", "engine": "sqlalchemy.engine.Engine"} for ext in (
        "flask_sqlalchemy.SQLAlchemy", "flask_sqlalchemy.extension.SQLAlchemy")},
    **{client: {"_session": "requests.Session", "session": "requests.Session"} for client in (
        *(f"atlassian.{c}" for c in ("Jira", "Confluence", "Bitbucket", "ServiceDesk", "Bamboo", "Xray", "Crowd",
                                     "Insight", "Portfolio", "Cloud")), "atlassian.rest_client.AtlassianRestAPI")},
    **{gl: {"session": "requests.Session"} for gl in ("gitlab.Gitlab", "gitlab.client.Gitlab")},
    **{engine: {"_retriever": "llama_index.core.base.base_retriever.BaseRetriever"} for engine in (
        *(f"llama_index.core.chat_engine{m}.{c}" for m, c in (
            ("", "CondensePlusContextChatEngine"), (".condense_plus_context", "CondensePlusContextChatEngine"),
            ("", "ContextChatEngine"), (".context", "ContextChatEngine"))),
        *(f"llama_index.core.query_engine{m}.RetrieverQueryEngine" for m in ("", ".retriever_query_engine")))}}
"""Documented attributes of framework objects with their type: the requests ``Session`` a REST client sends through
(atlassian-python-api's ``AtlassianRestAPI(session=...)`` keeps it in ``_session``, a ``requests.Session()`` when none
is given, and its ``session`` property returns it: https://atlassian-python-api.readthedocs.io/#other-authentication-
methods and ``atlassian/rest_client.py``; python-gitlab's ``Gitlab.session``: https://python-gitlab.readthedocs.io/en/
stable/api-usage-advanced.html#client-side-certificate -- code that reaches past the client's methods to the session,
``self.confluence._session.get(url)``, still sends a request; held-out wave 61: 10 misses); an upload's ``.file`` is the SpooledTemporaryFile
behind it (https://www.starlette.io/requests/#request-files; its sync ``read`` is file I/O); a declarative base's
``.metadata`` is its MetaData (https://docs.sqlalchemy.org/en/20/orm/mapping_api.html#sqlalchemy.orm.DeclarativeBase);
a diffusers pipeline's output (``libraries.images``) holds its PIL images in ``.images`` (or ``out["images"]``,
``out[0]``): https://huggingface.co/docs/diffusers/api/outputs; a matplotlib ``Axes``' ``.figure`` is its ``Figure``
(https://matplotlib.org/stable/api/_as_gen/matplotlib.axes.Axes.figure.html; ``libraries.charts``); a Celery app's
``.control`` is its ``Control`` and ``.tasks[name]`` a registered ``Task``
(https://docs.celeryq.dev/en/stable/reference/celery.html#celery.Celery.control; ``libraries.taskqueues``); a
``Popen``'s ``stdout``/``stderr`` is the read end of the child's pipe (https://docs.python.org/3/library/subprocess.html
#subprocess.Popen.stdout: "a readable stream object as returned by open()"; ``libraries.stdlib``), its ``stdin`` (and
that text stream's ``.buffer``) the write end (#subprocess.Popen.stdin: "a writeable stream object"); a path's
``.parent`` and each item of its ``.parents`` are paths; an ``lmdbm.Lmdb``'s ``.env`` is its ``lmdb.Environment``
(https://github.com/Dobatymo/lmdb-python-dbm, ``Lmdb.__init__(self, env, ...)``; ``libraries.lmdbstores``) (``Path(__file__).parents[1] / "data"``, held-out wave 46:
https://docs.python.org/3/library/pathlib.html#pathlib.PurePath.parents, "an immutable sequence providing access to
the logical ancestors of the path"); a GitPython commit's ``.tree`` is its root ``Tree``, a ``Diff``'s ``a_blob``/``b_blob`` its two ``Blob`` objects
(https://gitpython.readthedocs.io/en/stable/reference.html#git.objects.commit.Commit, ``libraries.gitobjects``); a
``Repo``'s ``.index`` is its ``IndexFile`` and ``.git`` its ``git.cmd.Git`` (https://gitpython.readthedocs.io/en/stable/
reference.html#git.repo.base.Repo.index, #git.repo.base.Repo.git; ``libraries.gitworktree``, ``libraries.vcs``); an item
of an unpickled object is a :data:`UNPICKLED_ITEM` (https://joblib.readthedocs.io/en/stable/generated/joblib.load.html:
"Reconstruct a Python object from a file persisted with joblib.dump", whatever was dumped, a dict of models included);
a Flask-SQLAlchemy extension's ``.session`` is a ``scoped_session`` of SQLAlchemy's sync ``Session`` and ``.engine`` its
``Engine`` (https://flask-sqlalchemy.readthedocs.io/en/stable/api/#flask_sqlalchemy.SQLAlchemy.session;
:mod:`~faultlib.detect.serving.blocking.flask_models` types ``Model.query``); LlamaIndex's retrieval chat engines and
``RetrieverQueryEngine`` keep the ``retriever`` they are built with in ``_retriever``, which a subclass overriding
``_aretrieve_context`` reads (https://docs.llamaindex.ai/en/stable/api_reference/chat_engines/condense_plus_context/;
:mod:`~faultlib.detect.serving.blocking.sync_fallbacks`)."""

MONGO_HANDLES: dict[str, str] = {
    "pymongo.MongoClient": "pymongo.database.Database", "pymongo.mongo_client.MongoClient": "pymongo.database.Database",
    "pymongo.database.Database": "pymongo.collection.Collection",
    "montydb.MontyClient": "montydb.database.MontyDatabase", "montydb.client.MontyClient": "montydb.database.MontyDatabase",
    "montydb.database.MontyDatabase": "montydb.collection.MontyCollection"}
"""What ``client.name`` / ``client[name]`` and ``db.name`` / ``db[name]`` are on pymongo's client and database
(https://pymongo.readthedocs.io/en/stable/tutorial.html#getting-a-database) and on MontyDB's, which copies that API
(https://github.com/davidlatwe/montydb#usage)."""

ATTRIBUTE_SETTERS: dict[str, str] = {
    "register_modules": "https://huggingface.co/docs/diffusers/api/pipelines/overview (DiffusionPipeline."
                        "register_modules(name=module, ...) sets each keyword as an attribute of the pipeline)"}
"""Methods that store their keyword arguments as attributes of ``self`` (``self.register_modules(unet=unet)`` makes
``self.unet``): the attribute has the argument's type."""

SAME_TYPE_METHODS = frozenset({"eval", "train", "to", "cpu", "cuda", "half", "float", "double", "requires_grad_",
                               "fit", "configurable_fields", "configurable_alternatives", "with_config", "with_retry",
                               "with_fallbacks", "with_types", "with_listeners"})
"""Methods of a torch module (``fit`` of an estimator, LangChain's ``with_config``/``configurable_fields``: a
runnable of the same behaviour) that return the object itself (or one that calls it)."""

ESTIMATOR_METHODS = frozenset({"fit", "predict", "predict_proba", "predict_log_proba", "decision_function",
                               "transform", "fit_transform", "fit_predict", "score", "kneighbors"})
TORCH_MODULE_METHODS = frozenset({"forward", "generate"})
MODEL_METHODS = frozenset({"predict", "predict_proba", "transcribe", "detect", "infer", "inference"})
OPENAI_SHAPES = frozenset({("chat", "completions", "create"), ("completions", "create"), ("embeddings", "create"),
                           ("images", "generate"), ("messages", "create"), ("transcriptions", "create"),
                           ("responses", "create")})
"""Call paths of the OpenAI API's shape; many SDKs copy it (https://platform.openai.com/docs/api-reference): on a
sync client instance the call is a blocking HTTPS request."""
MODULE_HOUSEKEEPING = frozenset({
    # torch.nn.Module (https://pytorch.org/docs/stable/generated/torch.nn.Module.html): no forward runs
    "add_module", "apply", "bfloat16", "buffers", "children", "compile", "cpu", "cuda", "double", "eval", "extra_repr",
    "float", "half", "ipu", "load_state_dict", "modules", "mtia", "parameters", "requires_grad_", "share_memory",
    "state_dict", "to", "to_empty", "train", "type", "xpu", "zero_grad",
    # transformers.PreTrainedModel (https://huggingface.co/docs/transformers/main_classes/model): set-up and I/O
    "active_adapters", "dequantize", "floating_point_ops", "estimate_tokens", "post_init", "push_to_hub",
    "save_pretrained", "from_pretrained", "tie_weights", "prune_heads", "can_generate", "generation_config"})
MODULE_HOUSEKEEPING_PREFIXES = ("get_", "set_", "enable_", "disable_", "register_", "named_", "add_", "prepare_",
                                "print_", "num_", "init_", "is_", "has_", "can_", "resize_", "load_", "gradient_")
"""Methods of a model that set it up or describe it; any other method called on a model whose class the code does
not name (``AutoModelForCausalLM.from_pretrained(..., trust_remote_code=True)``: the repository's own class) runs
the model: its ``encode_image``, ``streaming_generate``, a submodule's forward (``model.vision_proj(x)``)."""
LOAD_METHODS = frozenset({"from_pretrained", "load_from_checkpoint", "from_single_file", "load_adapter"})
"""Class methods of any third-party model class that read weights from disk or the Hub (the Hugging Face
``from_pretrained`` convention, Lightning's ``load_from_checkpoint``, diffusers' ``from_single_file``), and the
adapter loader of a built model (``load_adapter``: transformers' PEFT integration and Wav2Vec2's language
adapters read the adapter's weights, https://huggingface.co/docs/transformers/peft)."""
"""Model calls of any third-party model class (``Blade2Blade(...).predict``, a speech model's ``transcribe``): the
inference runs in the calling thread (an async model's call is awaited, and an awaited call is no blocker)."""
WEIGHT_LOADERS = re.compile(r"^load_(?:\w+_)?weights$")
"""Methods of any third-party model object that read its weights from a file given by path: Keras'
``Model.load_weights(filepath)`` (https://keras.io/api/models/model_saving_apis/weights_saving_and_loading/), MLX's
``nn.Module.load_weights(file)`` (https://ml-explore.github.io/mlx/build/html/python/nn/_autosummary/mlx.nn.Module.
load_weights.html), moshi_mlx's ``Lm``/``Mimi.load_pytorch_weights(file)`` (reads the safetensors file and converts
it: https://github.com/kyutai-labs/moshi, moshi_mlx/models/lm.py), diffusers' ``load_lora_weights`` (reads or
downloads the adapter: https://huggingface.co/docs/diffusers/api/loaders/lora). A method of the analysed files' own
classes is followed through its source instead."""
HUB_LOADERS = re.compile(r"^(?:load_)?from_(?:hf|hub)(?:_\w+)?$")
"""Alternate constructors of any third-party class named after the Hugging Face Hub: they fetch the repository's
files (``hf_hub_download``: a request to the Hub, or the cache when it holds them,
https://huggingface.co/docs/huggingface_hub/guides/download) before building the object -- moshi's
``CheckpointInfo.from_hf_repo(repo)`` downloads the config and the weights' files
(https://github.com/kyutai-labs/moshi, moshi/models/loaders.py), Megatron-Bridge's ``AutoBridge.from_hf_pretrained``
loads a Hub model's config and weights."""

OFFLOAD: dict[str, int] = {"asyncio.to_thread": 0, "anyio.to_thread.run_sync": 0, "trio.to_thread.run_sync": 0,
                           "starlette.concurrency.run_in_threadpool": 0, "fastapi.concurrency.run_in_threadpool": 0,
                           "asyncer.asyncify": 0, "anyio.to_process.run_sync": 0}
"""Functions that run their function argument (at this index) in a worker thread: off the loop."""

OFFLOAD_METHODS: dict[str, int] = {"run_in_executor": 1, "submit": 0, "async_add_executor_job": 0,
                                   "async_add_import_executor_job": 0}
"""Methods that run their function argument in an executor (``loop.run_in_executor(ex, fn)``,
``executor.submit(fn)``); ``submit`` only on an executor (see :func:`is_executor`). Home Assistant's
``hass.async_add_executor_job(target, *args)`` (and the recorder's ``get_instance(hass).async_add_executor_job``,
``hass.async_add_import_executor_job``) run ``target`` in its executor: "the sync function is run in a worker
thread" (https://developers.home-assistant.io/docs/asyncio_working_with_async/#calling-sync-functions-from-async);
a lambda handed there (``lambda: requests.post(url, data=data)``) is off the loop like one handed to
``run_in_executor``."""

LOOP_CALLBACK_METHODS: dict[str, int] = {"call_soon": 0, "call_soon_threadsafe": 0, "call_later": 1, "call_at": 1,
                                         "add_done_callback": 0, "add_reader": 1, "add_writer": 1,
                                         "add_callback": 0, "spawn_callback": 0, "add_timeout": 1,
                                         "add_future": 1}
"""Loop methods whose function argument (at this index) runs *on* the loop, as a callback (asyncio's, and Tornado's
``IOLoop.add_callback``/``spawn_callback``/``add_timeout``/``add_future``: https://www.tornadoweb.org/en/stable/
ioloop.html)."""

INFERENCE_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                                "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})

ADVICE = {
    "blocking_sleep": "use `await asyncio.sleep(...)`",
    "blocking_http": "use the library's async client (aiohttp, httpx.AsyncClient, openai.AsyncOpenAI, aioboto3, "
                     "`ainvoke`) or `await asyncio.to_thread(...)`",
    "blocking_db": "use an async driver (aiosqlite, asyncpg, SQLAlchemy's AsyncSession, redis.asyncio, motor) or "
                   "`await asyncio.to_thread(...)`; in FastAPI a plain `def` endpoint runs in the thread pool",
    "blocking_task": "wait off the loop: `await asyncio.to_thread(result.get)`, `await asyncio.to_thread("
                     "app.control.broadcast, ...)`",
    "blocking_file_io": "use `await asyncio.to_thread(...)` (or aiofiles)",
    "blocking_socket_io": "use asyncio streams (`asyncio.open_connection`) or the loop's `sock_*` methods",
    "blocking_subprocess": "use `await asyncio.create_subprocess_exec(...)`",
    "blocking_cpu": "run it in `loop.run_in_executor(...)` or `asyncio.to_thread(...)` (torch releases the GIL in "
                    "its kernels), or a process pool",
}


@dataclass(frozen=True)
class Merged:
    """Every loaded :class:`Vocabulary` merged: ``calls``, ``families``, ``returns``, ``plugins`` (entry points
    loaded), ``failed`` (``name: why`` for entry points that could not be loaded), ``when`` (the calls that block
    only for some values of an argument: :class:`BlocksWhen`) and ``reads`` (properties whose read blocks)."""

    calls: dict[str, tuple[str, str]]
    families: tuple[Family, ...]
    returns: dict[str, str]
    plugins: tuple[str, ...]
    failed: tuple[str, ...]
    when: dict[str, BlocksWhen] = field(default_factory=dict)
    reads: dict[str, tuple[str, str]] = field(default_factory=dict)

    def _families_of(self, type_name: str) -> list[Family]:
        cache = self.__dict__.setdefault("_by_type", {})  # frozen dataclass: a per-type memo of matching families
        found = cache.get(type_name)
        if found is None:
            found = cache[type_name] = [f for f in self._candidates(type_name[:1]) if f.owns(type_name)]
            spelt = known_spelling(self._described(), type_name) if not found else None
            if spelt is not None:  # openpyxl.workbook.Workbook: the vocabulary's openpyxl.workbook.workbook.Workbook
                found = cache[type_name] = self._families_of(spelt)
        return found

    def _described(self) -> frozenset[str]:
        """The class names this vocabulary describes (:func:`~.class_spellings.described_classes`), memoised."""
        found = self.__dict__.get("_described_classes")
        if found is None:
            found = self.__dict__["_described_classes"] = described_classes(self.calls, self.families, self.returns)
        return found

    def _candidates(self, first: str) -> list[Family]:
        """The families, in order, that may own a type name beginning with ``first``: a family owns only names that
        begin with one of its ``types`` (:meth:`Family.owns`: equal, a package's member, a prefix or a resource of
        one), so the others are not asked (a few hundred families for each type name met)."""
        table = self.__dict__.get("_by_first")
        if table is None:
            firsts = [{t[:1] for t in f.types} for f in self.families]
            table = self.__dict__["_by_first"] = {c: [f for f, fs in zip(self.families, firsts) if c in fs or "" in fs]
                                                  for c in set().union(*firsts)}
            table[None] = [f for f, fs in zip(self.families, firsts) if "" in fs]
        return table.get(first, table[None])

    def _owners(self) -> frozenset[str]:
        """Every ``pkg.Type`` that has a ``pkg.Type.method`` entry in ``calls``, memoised."""
        found = self.__dict__.get("_owner_names")
        if found is None:
            found = self.__dict__["_owner_names"] = frozenset(name.rpartition(".")[0] for name in self.calls)
        return found

    def owned(self, type_name: str) -> bool:
        """Whether a family owns ``type_name`` or ``calls`` names one of its methods (the vocabulary describes it)."""
        prefixes = self._owners()
        if type_name in prefixes or self._families_of(type_name):
            return True
        spelt = known_spelling(self._described(), type_name)
        return spelt is not None and spelt in prefixes

    def spelling(self, type_name: str) -> str:
        """The vocabulary's own spelling of the class ``type_name`` names by another of its import paths
        (``pandas.core.frame.DataFrame`` -> ``pandas.DataFrame``: :mod:`~.class_spellings`), else ``type_name``."""
        memo = self.__dict__.setdefault("_spellings", {})
        found = memo.get(type_name)
        if found is None:
            direct = type_name in self._owners() or any(f.owns(type_name) for f in self._candidates(type_name[:1]))
            found = memo[type_name] = type_name if direct else (known_spelling(self._described(), type_name)
                                                                or type_name)
        return found

    def whole_package(self, type_name: str) -> bool:
        """Whether ``type_name`` is owned only by package families that take every method of the package for a
        blocking call (``_pkg("elevenlabs", ...)``: the whole SDK is the synchronous client)."""
        families = self._families_of(type_name)
        return bool(families) and all(f.package and "*" in f.methods for f in families)

    def family_kind(self, type_name: str, method: str) -> tuple[str, str] | None:
        """``(kind, source)`` of ``type_name.method`` by a family rule, or None."""
        for family in self._families_of(type_name):
            kind = family.kind_of(method)
            if kind is not None:
                return kind, family.source
        return None

    def request_of(self, type_name: str, method: str) -> bool:
        """``type_name.method(...)`` returns a request of the same client (``api.people().get()``), not data: a
        lower-case method of a client with sub-clients whose family does not say its actions return data
        (:attr:`Family.data_actions`)."""
        if method[:1].isupper() or self.sub_resource(type_name, method) is None:
            return False
        return not any(f.data_actions and f.namespace(method) for f in self._families_of(type_name))

    def sub_resource(self, type_name: str, attr: str) -> str | None:
        """The type of ``instance.attr`` when ``type_name`` is a client with sub-clients (``openai.OpenAI.chat``)."""
        for family in self._families_of(type_name):
            if family.namespace(attr):
                return f"{type_name}.{attr}"
        if attr in ATTRIBUTE_TYPES.get(type_name, {}):
            return ATTRIBUTE_TYPES[type_name][attr]
        return MONGO_HANDLES.get(type_name)


@lru_cache(maxsize=1)
def vocabulary() -> Merged:
    """The built-in tables plus every ``faultlib.blocking_calls`` entry point (loaded once per process; an entry
    point that fails to load is left out and named in ``failed``, with a :class:`UserWarning`)."""
    from importlib.metadata import entry_points

    tables, plugins, failed = [*BUILTIN], [], []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            value = ep.load()
            value = value() if callable(value) and not isinstance(value, Vocabulary) else value
            if not isinstance(value, Vocabulary):
                raise TypeError(f"is a {type(value).__name__}, not a faultlib Vocabulary")
            if value.problem():  # junk entries would replace built-in ones and hide their findings
                raise TypeError(value.problem())
        except (Exception, SystemExit) as exc:  # a plugin's failure (even sys.exit) must not stop or end the analysis
            failed.append(f"{ep.name}: {type(exc).__name__}: {exc}")
            warnings.warn(f"{ENTRY_POINT_GROUP} entry point {ep.name!r} ({ep.value}) not loaded: {exc}", stacklevel=2)
            continue
        plugins.append(ep.name)
        if all(value is not t for t in tables):
            tables.append(value)
    calls: dict[str, tuple[str, str]] = {}
    returns: dict[str, str] = {}
    families: list[Family] = []
    when: dict[str, BlocksWhen] = {}
    reads: dict[str, tuple[str, str]] = {}
    for table in tables:
        calls.update(table.calls)
        reads.update(getattr(table, "reads", {}))
        returns.update(table.returns)
        families.extend(table.families)
        for name in table.calls:  # a later table's entry replaces the condition too
            when.pop(name, None)
        when.update(getattr(table, "when", {}))
    return Merged(calls, tuple(families), returns, tuple(plugins), tuple(failed), when, reads)


def is_torch_module(type_name: str | None) -> bool:
    """A torch ``nn.Module`` type: ``torch.nn.Module``, ``torch.nn.Linear``, ``torch.nn.modules.*``,
    ``torch.jit.ScriptModule``, a torchaudio transform (``Resample``, ``MelSpectrogram``), and a Hugging Face model class (``transformers.LlamaModel``,
    ``transformers.BertForSequenceClassification``: every one is an ``nn.Module``)."""
    if not type_name:
        return False
    if type_name in ("torch.nn.Module", "torch.jit.ScriptModule", "torch.jit.RecursiveScriptModule"):
        return True
    head, _, last = type_name.rpartition(".")
    if head.startswith("transformers") and last[:1].isupper() and (last.endswith("Model") or "For" in last) and not (
            last.startswith(("TF", "Flax"))):
        return True
    if head.startswith("torchaudio.transforms") and last[:1].isupper():
        return True  # "implemented using torch.nn.Module" (https://pytorch.org/audio/stable/transforms.html)
    return head.startswith("torch.nn") and last[:1].isupper() and "functional" not in head



OPAQUE_MODELS = frozenset({"transformers.PreTrainedModel", "torch.jit.ScriptModule", "torch.jit.RecursiveScriptModule"})
"""Models whose class the analysis cannot read, so that any method beyond the module's housekeeping is the model's
own code: what ``AutoModel*.from_pretrained`` gives (a remote-code class among them), and what ``torch.jit.load``
gives, whose methods besides ``nn.Module``'s are ``forward`` and the methods compiled with ``@torch.jit.export``
("an entry point into a ScriptModule", https://pytorch.org/docs/stable/generated/torch.jit.export.html; held-out
wave 58: a TTS model's ``generate_jit(text)``)."""


def runs_remote_model(type_name: str | None, method: str) -> bool:
    """``method`` called on a model of an unread class (:data:`OPAQUE_MODELS`) runs the model (see
    :data:`MODULE_HOUSEKEEPING`)."""
    return type_name in OPAQUE_MODELS and runs_model_code(method)


def runs_model_code(method: str) -> bool:
    """Whether ``method`` (or a submodule's name) called on a model of an unread class is the model's own code: a
    public name beyond the module's housekeeping (:data:`MODULE_HOUSEKEEPING`)."""
    return not method.startswith("_") and (
        method not in MODULE_HOUSEKEEPING and not method.startswith(MODULE_HOUSEKEEPING_PREFIXES))


def is_estimator(type_name: str | None) -> bool:
    """A scikit-learn estimator type (``sklearn.*`` class)."""
    return bool(type_name) and type_name.startswith("sklearn.") and type_name.rpartition(".")[2][:1].isupper()


def is_third_party_instance(type_name: str | None) -> bool:
    """An instance of a class outside the standard library's ``builtins``/``typing`` (``blade2blade.Blade2Blade``)."""
    return bool(type_name) and "." in type_name and type_name.rpartition(".")[2][:1].isupper() and not (
        type_name.startswith(("builtins.", "typing.", "unittest.")))


def is_executor(type_name: str | None) -> bool:
    """A :class:`concurrent.futures.Executor` (or a pool named like one: ``ThreadPoolExecutor``, ``ProcessPool``)."""
    if not type_name:
        return False
    last = type_name.rpartition(".")[2]
    return type_name.startswith("concurrent.futures.") or last.endswith(("Executor", "Pool"))
