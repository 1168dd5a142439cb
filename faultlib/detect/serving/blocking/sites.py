"""What a call blocks on once the analysis knows what it calls: a dotted name of the vocabulary (a function, or a method
of a typed third-party instance), a value assigned several types (any of them), and file calls on an in-memory
buffer (``torch.save(t, io.BytesIO())`` copies into memory; reading one parses it: CPU work). Used by
:mod:`~faultlib.detect.serving.blocking.reach`."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.archives import stored_in_memory
from faultlib.detect.serving.blocking.autocommit_connections import commits_nothing
from faultlib.detect.serving.blocking.attachment_paths import names_a_path
from faultlib.detect.serving.blocking.binary_responses import binary_response_write
from faultlib.detect.serving.blocking.bodies import streaming_body_read
from faultlib.detect.serving.blocking.branch_values import branch_types
from faultlib.detect.serving.blocking.brief_locks import held_briefly
from faultlib.detect.serving.blocking.absent_methods import lacks_method
from faultlib.detect.serving.blocking.client_names import client_kind, name_guess, project_client_kind
from faultlib.detect.serving.blocking.stream_subscriptions import subscribes
from faultlib.detect.serving.blocking.coroutine_clients import used_as_coroutines
from faultlib.detect.serving.blocking.creations import only_creates
from faultlib.detect.serving.blocking.fetched_pages import as_fetched
from faultlib.detect.serving.blocking.consumed_bodies import read_before
from faultlib.detect.serving.blocking.libraries.responses import STREAMED_RESPONSE
from faultlib.detect.serving.blocking.descriptor_files import descriptor_file_call
from faultlib.detect.serving.blocking.descriptor_opens import wraps_descriptor
from faultlib.detect.serving.blocking.drained_executors import shuts_down_drained
from faultlib.detect.serving.blocking.executor_exits import exit_waits
from faultlib.detect.serving.blocking.encodes import RENDERERS, image_decoding, image_encoding, image_file_write
from faultlib.detect.serving.blocking.factories import documented_factory
from faultlib.detect.serving.blocking.fetched import parses_awaited_text
from faultlib.detect.serving.blocking.done_callbacks import reads_own_done_future
from faultlib.detect.serving.blocking.finished import joins_finished
from faultlib.detect.serving.blocking.framework_verbs import framework_verb
from faultlib.detect.serving.blocking.guarded_gets import guarded_get
from faultlib.detect.serving.blocking.libraries.chatuploads import FILE_CLASSES
from faultlib.detect.serving.blocking.kept_files import kept_file
from faultlib.detect.serving.blocking.listed_calls import listed_targets
from faultlib.detect.serving.blocking.model import Func, dotted
from faultlib.detect.serving.blocking.memory_connections import memory_connect
from faultlib.detect.serving.blocking.memory_dbs import in_memory_session
from faultlib.detect.serving.blocking.greenlet_callables import over_async_driver
from faultlib.detect.serving.blocking.memory_spools import memory_spool
from faultlib.detect.serving.blocking.none_defaults import none_default
from faultlib.detect.serving.blocking.text_args import as_text
from faultlib.detect.serving.blocking.memory_params import mixed_memory_argument
from faultlib.detect.serving.blocking.model_refs import constructed_site, run_site
from faultlib.detect.serving.blocking.native_wav import PYDUB, native_wav
from faultlib.detect.serving.blocking.own_root import imports_own_package
from faultlib.detect.serving.blocking.preparation import prepares_text
from faultlib.detect.serving.blocking.proc_files import reads_proc
from faultlib.detect.serving.blocking.revived_objects import revives_in_memory
from faultlib.detect.serving.blocking.scopes import _LOADED_MODEL
from faultlib.detect.serving.blocking.settled_events import settled_wait
from faultlib.detect.serving.blocking.lock_attempts import tries_once
from faultlib.detect.serving.blocking.shapes import class_parameter, is_poll
from faultlib.detect.serving.blocking.single_rows import adds_one_row
from faultlib.detect.serving.blocking.stream_params import opened_stream_argument
from faultlib.detect.serving.blocking.tasks import sent_task
from faultlib.detect.serving.blocking.untyped_cursors import untyped_cursor_call

__all__ = ["Site", "any_of_site", "argument_blocks", "in_memory", "named_site", "null_device"]


@dataclass(frozen=True)
class Site:
    """A blocking call: ``kind`` (:data:`faultlib.detect.serving.blocking.KINDS`), what it calls, where."""

    kind: str
    what: str
    func: Func
    node: ast.AST
    guess: str | None = None
    """What the verdict is guessed from, when no vocabulary entry says the call blocks (a class name ending in
    ``Client``): said in the message and as ``evidence.guess``."""
    library: object | None = None
    """For a call into an installed library: the :class:`~faultlib.detect.serving.blocking.installed.LibraryHit` its
    source reaches, said as ``evidence.library``."""
    inferred: dict | None = None
    """For a client inferred from the code's evidence (:mod:`~faultlib.detect.serving.blocking.inferred`): the rule,
    the type and where the evidence is, said as ``evidence.inferred``."""

    @property
    def key(self) -> tuple:
        return (self.func.module.path, self.node.lineno, self.node.col_offset, self.kind)


IN_MEMORY_FILES = frozenset({"io.BytesIO", "io.StringIO"})
WRITERS = ("save", "dump", "write", "to_")
"""A file call whose name starts so writes into an in-memory buffer: a memory copy, not I/O. ``to_`` is pandas'
writers (``DataFrame.to_csv(buffer)``, ``to_json``, ``to_parquet``: "path_or_buf ... a file-like object",
https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.to_csv.html): into ``io.StringIO``/``BytesIO`` they
format the frame in memory, as ``to_csv()`` with no target returns the text."""
COPIES = frozenset({"wave.open", "PIL.Image.open", "mutagen.File", "mutagen._file.File", "numpy.load", *FILE_CLASSES})
"""File openers that over an in-memory buffer only copy bytes or read a header (a WAV header and raw frames; Pillow's
lazy open identifies the format and leaves decoding to ``load``; mutagen reads the tags and the stream header, not
the audio; ``discord.File`` only wraps the stream it is given; ``numpy.load`` reads an ``.npy`` header and copies
the array's raw bytes, and opens an ``.npz`` as a lazy ``NpzFile`` whose arrays are read when indexed -- "the
returned object is a dictionary-like object which can be queried for its list of arrays",
https://numpy.org/doc/stable/reference/generated/numpy.load.html; pickled objects need allow_pickle=True: held-out
wave 71, a multivector store's cached embeddings): no decoding."""
REMOTE_KINDS = frozenset({"blocking_db", "blocking_http", "blocking_socket_io"})
"""A family class of these kinds connects to its server when constructed (``pymilvus.Collection(name)``)."""


def named_site(index, target: str, call: ast.Call, func: Func) -> Site | None:
    """The site of a call of the dotted name ``target`` (a function, or a method of a typed instance)."""
    if documented_factory(index, call, func):
        return None  # self.storage.bucket(name): the GCS client's factory, though `storage` may be a boto3 client
    exited = exit_waits(target, call, func)  # with ThreadPoolExecutor() as pool: ... wait_for(..., timeout=...)
    if exited is not None:
        return Site("blocking_task", exited, func, call)
    if target.startswith(("sqlalchemy.", "sqlmodel.")) and in_memory_session(index, call, func):
        return None  # a session of a "sqlite://" engine: the database is in the process's memory
    if over_async_driver(index, target, call, func):
        return None  # await conn.run_sync(lambda c: inspect(c).get_table_names()): greenlet over the async driver
    if memory_spool(target, call):
        return None  # SpooledTemporaryFile(max_size=0): never rolls over, a buffer in memory
    known = index.vocab.calls.get(target)
    if known is not None and memory_connect(index.vocab, target, call, func):
        return None  # sqlite3.connect(":memory:"): the database lives in the process's memory
    if commits_nothing(index, target, call, func):
        return None  # conn.commit() on a connection in autocommit mode: no transaction open, nothing sent
    if known is not None and known[0] == "blocking_file_io" and null_device(index, call, func):
        return None  # open(os.devnull, "w"): the null device, no disk behind it
    if known is not None and known[0] == "blocking_file_io" and reads_proc(call):
        return None  # open(f"/proc/{pid}/status"): kernel tables rendered in memory
    if revives_in_memory(target) or wraps_descriptor(target, call, func):
        return None  # langchain_core.load.load(chunk), io.FileIO(os.dup(1), "w"): objects in memory, no file opened
    if target in FILE_CLASSES and not names_a_path(
            call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "fp"), None), func):
        return None  # discord.File(buffer) / discord.File(f) of a `with open(...) as f`: wraps a stream
    if target in COPIES and opened_stream_argument(call, func):
        return None  # wave.open(wav_in: IO[bytes]): a stream its caller opened (reported there if on disk)
    if known is not None and known[0] == "blocking_file_io" and in_memory(index, call, func):
        # torch.save(t, io.BytesIO()): a copy into memory, no file; reading one still parses/decodes it
        if target in RENDERERS:  # plt.savefig(buffer): the figure is drawn and encoded here all the same
            return Site("blocking_cpu", f"{target} (rendering into an in-memory buffer)", func, call)
        last = target.rpartition(".")[2]
        quiet = (last.startswith(WRITERS) or target in COPIES or stored_in_memory(target, call)
                 or not argument_blocks(index, target, call, func))
        return None if quiet else Site(
            "blocking_cpu", f"{target} (parsing an in-memory buffer)", func, call)
    if known is not None:
        if (only_creates(target, call, func) or not argument_blocks(index, target, call, func)
                or parses_awaited_text(target, call, func) or shuts_down_drained(call, func)
                or held_briefly(target, call, func)  # lock.acquire() where every holder only sets a field
                or (target == "importlib.import_module" and imports_own_package(index, call, func))):
            return None
        return Site(known[0], target.removeprefix("builtins."), func, call)
    owner, _, method = target.rpartition(".")
    family = index.vocab.family_kind(owner, method) if owner else None
    guess = None
    if family is None and owner:  # slack_sdk.WebClient(...).chat_postMessage: a client by its class name
        own = project_client_kind(index, owner, method)  # a class of the analysed files: by its third-party base
        family = client_kind(index.vocab, owner, method) if own is None else own[1]
        if family is not None and used_as_coroutines(index, owner, method):
            family = None  # the code awaits or schedules its methods elsewhere: an asyncio client
        guess = name_guess(owner if own is None else own[0]) if family is not None else None
        if family is not None and lacks_method(index, owner if own is None else own[0], method):
            family = None  # the installed library's class has no such method: it raises, it sends nothing
        if family is not None and subscribes(owner if own is None else own[0], call):
            family = None  # ws.kline(symbol=s, callback=on_message): a stream subscribed, messages come later
    if family is not None and owner == PYDUB and native_wav(call, method):  # WAV without ffmpeg: memory or a file
        return None if in_memory(index, call, func) else Site(
            "blocking_file_io", f"{target} (pydub's own WAV reader/writer: file I/O, no ffmpeg)", func, call)
    encoded = image_encoding(index, call, func) if owner == "PIL.Image.Image" else None
    if encoded is not None:  # image.save(io.BytesIO(), "PNG"): Pillow's encoder into memory, no file
        return Site("blocking_cpu", encoded, func, call)
    if family is not None:
        waits = family[0] != "blocking_task" or not (is_poll(call) or joins_finished(call, func)
                                                     or guarded_get(call, func) or reads_own_done_future(call, func)
                                                     or settled_wait(index, call, func))
        quiet = (not waits or tries_once(call, method)  # a file lock's acquire(timeout=0): one attempt
                 or only_creates(target, call, func) or adds_one_row(owner, method, call, func)
                 or (owner == STREAMED_RESPONSE and read_before(call, func)))  # a body an earlier read stored
        return None if quiet else Site(
            family[0], target if guess is None else f"{target} ({guess})", func, call, guess)
    constructed = index.vocab.family_kind(target, "__init__") if method[:1].isupper() else None
    if constructed is not None:  # Flux1(model_config=...): a model class that loads its weights
        what = "connects to its server" if constructed[0] in REMOTE_KINDS else "loads the model"
        return Site(constructed[0], f"{target} (constructing it {what})", func, call)
    loads = constructed_site(index, target, call, func) if method[:1].isupper() else None
    if loads is not None:  # INSTRUCTOR("hkunlp/instructor-large"): a model class built from a model reference
        return Site("blocking_file_io", loads, func, call)
    if owner and run_site(index, owner, method):
        return Site("blocking_cpu", f"{owner}.{method} (a model class: the code builds it from a model reference)",
                    func, call)
    if vocab.is_torch_module(owner) and method in vocab.TORCH_MODULE_METHODS:
        return Site("blocking_cpu", f"{owner}.{method}", func, call)
    if vocab.runs_remote_model(owner, method) and not prepares_text(index, call, func):
        return Site("blocking_cpu", f"{owner}.{method} (the model's own code)", func, call)
    if vocab.is_estimator(owner) and method in vocab.ESTIMATOR_METHODS:
        return Site("blocking_cpu", f"{owner}.{method}", func, call)
    if method in vocab.MODEL_METHODS and vocab.is_third_party_instance(owner):
        return Site("blocking_cpu", f"{owner}.{method}", func, call)
    if method in vocab.LOAD_METHODS and vocab.is_third_party_instance(owner):
        return Site("blocking_file_io", f"{owner}.{method}", func, call)
    if vocab.HUB_LOADERS.match(method) and vocab.is_third_party_instance(owner):  # CheckpointInfo.from_hf_repo(r)
        return Site("blocking_http", f"{target} (a Hub loader: downloads the repository's files)", func, call)
    if vocab.WEIGHT_LOADERS.match(method) and vocab.is_third_party_instance(owner):  # model.load_weights(path)
        return Site("blocking_file_io", f"{target} (reads the model's weights from the file)", func, call)
    if _LOADED_MODEL.match(method) and _third_party(owner):  # mlflow.pyfunc.load_model(uri), booster.load_model(p)
        return Site("blocking_file_io", f"{target} (a library's model loader: reads the model's files)", func, call)
    through = descriptor_file_call(index, target, call, func)  # json.dump(state, os.fdopen(fd, "w"))
    return None if through is None else Site("blocking_file_io", through, func, call)


def _third_party(owner: str) -> bool:
    """A third-party module (``mlflow.pyfunc``) or an instance of a third-party class (``xgboost.XGBClassifier``)."""
    top = owner.partition(".")[0]
    return bool(top) and top not in sys.stdlib_module_names and top not in ("builtins", "typing") and (
        vocab.is_third_party_instance(owner) or not owner.rpartition(".")[2][:1].isupper())


def any_of_site(index, call: ast.Call, func: Func) -> Site | None:
    """A call on a global or attribute whose assignments give it several types (a model switched at run time):
    the first of them for which the call blocks (see :meth:`Stores.candidates`); a Celery task sent
    (:mod:`~faultlib.detect.serving.blocking.tasks`); a framework's verb on an untyped value
    (:mod:`~faultlib.detect.serving.blocking.framework_verbs`); a PEP 249 cursor of an untyped value called without
    ``await`` (:mod:`~faultlib.detect.serving.blocking.untyped_cursors`); a loop variable over a list of library calls the
    callers pass (:mod:`~faultlib.detect.serving.blocking.listed_calls`)."""
    sent = sent_task(index, call, func)
    if sent is not None:
        return Site("blocking_socket_io", sent, func, call)
    body = streaming_body_read(call, func)  # resp["Body"].read() after the request was offloaded
    if body is not None:
        return Site("blocking_http", body, func, call)
    written = binary_response_write(index, call, func)  # (await client.audio.speech.create(...)).stream_to_file(p)
    if written is not None:
        return Site("blocking_file_io", written, func, call)
    kept = kept_file(index, call, func)  # self.temp.write(chunk), self.temp = NamedTemporaryFile() elsewhere
    if kept is not None:
        return Site("blocking_file_io", kept, func, call)
    encoded = image_encoding(index, call, func) or image_decoding(index, call, func)  # the codec runs here
    if encoded is not None:
        return Site("blocking_cpu", encoded, func, call)
    written = image_file_write(index, call, func)  # img.save(tmp, format="png"), img untyped: encoded into a file
    if written is not None:
        return Site("blocking_file_io", written, func, call)
    cursor = untyped_cursor_call(index, call, func)  # with closing(bot.db.cursor()) as cur: cur.execute(q)
    if cursor is not None:
        return Site("blocking_db", cursor, func, call, "a PEP 249 cursor called without await")
    verb = framework_verb(call, func)  # h = self.model(x).realize() in a module importing tinygrad
    if verb is not None and index.type_of(call.func.value, func) is None:
        return Site(verb[0], verb[1], func, call)
    if isinstance(call.func, ast.Attribute) and not (isinstance(call.func.value, ast.Name)
                                                     and class_parameter(call.func.value, func)):
        for typed in index.stores.candidates(call.func.value, func):
            site = named_site(index, f"{typed}.{call.func.attr}", call, func) if isinstance(typed, str) else None
            if site is not None:
                return Site(site.kind, f"{site.what} (one of the values `{_segment(func, call.func.value)}` "
                            "is assigned)", func, call, site.guess)
    for typed in branch_types(index, call, func):  # model = Client() here, genai.GenerativeModel(...) there
        site = named_site(index, f"{typed}.{call.func.attr}", call, func)
        if site is not None:
            return Site(site.kind, f"{site.what} (one of the values `{call.func.value.id}` is assigned in this "
                        "function)", func, call, site.guess)
    for target, made, caller, name in listed_targets(index, call, func):  # for func in tasks: func()
        site = named_site(index, target, made, caller)
        if site is not None:
            return Site(site.kind, f"{site.what} (an element of the list `{name}` its callers pass)", func, call)
    if isinstance(call.func, (ast.Name, ast.Attribute)):
        for typed in index.stores.candidates(call.func, func):
            if isinstance(typed, str) and vocab.is_torch_module(typed):
                return Site("blocking_cpu", f"{typed} forward (one of the values `{_segment(func, call.func)}` "
                            "is assigned)", func, call)
    return None


def argument_blocks(index, target: str, call: ast.Call, func: Func) -> bool:
    """Whether the vocabulary call ``target`` blocks with the arguments ``call`` passes (always, unless the
    vocabulary says it blocks only for some values of one: :class:`~faultlib.detect.serving.blocking.entries.
    BlocksWhen`)."""
    condition = index.vocab.when.get(target)
    if condition is None:
        return True
    args, keywords = list(call.args), {k.arg: k.value for k in call.keywords}
    if condition.test == "contains":  # pattern = f"{name}.*"; folder.glob(pattern): the text bound to the name
        args = [bound_text(a, func) for a in args]
        keywords = {k: bound_text(v, func) for k, v in keywords.items()}
    if condition.test == "text":  # Metadata(doi.lower()), Metadata(f"https://..."): a string, shown by the code
        args = [as_text(a, func) for a in args]
        keywords = {k: as_text(v, func) for k, v in keywords.items()}
    if condition.test == "fetched":  # BeautifulSoup(response.text): a remote page of any length (fetched_pages)
        args = [as_fetched(a, func, index) for a in args]
        keywords = {k: as_fetched(v, func, index) for k, v in keywords.items()}
    if condition.test == "unset":  # credentials = None; if key: credentials = ...; Client(credentials=credentials)
        args = [none_default(a, func) for a in args]
        keywords = {k: none_default(v, func) for k, v in keywords.items()}
    return condition.blocks(args, keywords, _literal)


def bound_text(expr: ast.expr, func: Func) -> ast.expr:
    """The string or f-string a local name of ``func`` is bound to by its only binding (``pattern = f"{x}.*"``), or
    ``expr`` itself (a parameter, a name bound more than once or to anything else)."""
    if not isinstance(expr, ast.Name):
        return expr
    bindings = [n for n in func.nodes if isinstance(n, ast.Name) and n.id == expr.id and isinstance(n.ctx, ast.Store)]
    params = func.node.args
    if len(bindings) != 1 or expr.id in {a.arg for a in (*params.posonlyargs, *params.args, *params.kwonlyargs)}:
        return expr
    for node in func.nodes:
        if isinstance(node, ast.Assign) and node.targets == [bindings[0]] and isinstance(
                node.value, (ast.Constant, ast.JoinedStr)):
            return node.value
    return expr


def _literal(expr: ast.expr):
    try:
        return ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise ValueError("not a literal") from exc


def in_memory(index, call: ast.Call, func: Func) -> bool:
    """An argument of ``call`` is an in-memory file (``io.BytesIO``/``io.StringIO``): the file call reads or
    writes memory, not a disk."""
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(arg, ast.Starred):
            continue
        if index.type_of(arg, func) in IN_MEMORY_FILES and not mixed_memory_argument(index, arg, func, IN_MEMORY_FILES):
            return True  # a buffer, unless some caller passes the parameter a path
    return False


NULL_DEVICE = "os.devnull"
"""The null device's path (https://docs.python.org/3/library/os.html#os.devnull: ``/dev/null`` on POSIX, ``nul`` on
Windows): the kernel discards what is written and reads return end of file at once, with no disk behind it."""


def null_device(index, call: ast.Call, func: Func) -> bool:
    """The file call's first argument is :data:`NULL_DEVICE` (``open(os.devnull, "w")`` to silence output)."""
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("file", "path")), None)
    parts = dotted(first) if first is not None else None
    return bool(parts) and index.resolve_parts(parts, func.module, func) == NULL_DEVICE


def _segment(func: Func, node: ast.AST, limit: int = 120) -> str:
    text = func.module.segment(node) or ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
