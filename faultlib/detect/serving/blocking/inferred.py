"""Synchronous clients the vocabulary does not list, inferred from what the analysed code does with them (issue 17).

Every held-out wave brings SDKs nobody listed (a chat server's driver, a download daemon's JSON-RPC client, a code
host's API): their calls on the loop were misses until a vocabulary family named them. This rule infers such a client
from evidence in the code, not from its name:

* the object is an instance of a third-party class (its package is not the analysed code's, not the standard
  library's, not one the vocabulary describes, not asyncio-first: :data:`~faultlib.detect.serving.blocking.
  client_names.ASYNC_FIRST` or a name part starting ``Async``/``aio``);
* the code gives it a server to talk to: somewhere in the analysed files it is constructed with an endpoint or a
  credential (:data:`ENDPOINT_WORDS`, :data:`CREDENTIAL_WORDS`: a keyword ``url=``/``host=``/``token=``/``password=``
  ..., a literal dict of options with such keys, a positional value named so -- ``settings.GITLAB_TOKEN``,
  ``os.environ["QB_HOST"]`` -- or a literal URL), or with another instance of its package that has such evidence
  (``API(Client(host=..., secret=...))``), or the code calls :data:`SESSION_METHODS` on it (``loader.login(...)``);
* and no ``async def`` of the analysed files awaits or schedules a call of it
  (:func:`~faultlib.detect.serving.blocking.coroutine_clients.used_as_coroutines`): one awaited call anywhere makes
  it an asyncio client, whose plain methods set state.

Then a method called on it on the loop without ``await`` blocks: ``blocking_db`` when the evidence names a database
(:data:`DB_WORDS`), ``blocking_http`` otherwise. Left out: constructors, attribute reads, private and dunder methods,
methods whose name says async, and methods that only touch local state (:data:`LOCAL`, :data:`LOCAL_PREFIXES`). A
method reached through namespace attributes (``driver.posts.create_post``) counts as the client's; so does one
reached through the namespaces of an SDK the vocabulary lists whole (``_pkg("elevenlabs", ...)``: every class of the
package is the sync client, but the generated namespaces ``client.voices`` have no type the vocabulary can name), with
the same evidence asked of the instance (held-out wave 61: 35 misses of ``ElevenLabs(api_key=..., httpx_client=...)``).
A synchronous HTTP transport handed to the constructor is evidence too
(:mod:`~faultlib.detect.serving.blocking.sync_transports`). An endpoint alone
(no credential, no login) given in the very function that calls the object's methods is a request being described
(``RequestShape(url=u).render()``), not a connection: silent; kept in a global, an attribute or another function, it
is one.

A second rule for the same packages: a package function (``createParser(path)``) or a class-level call
(``Torrent.from_file(path)``) whose first positional argument is named, by its last word, as a path
(:data:`PATH_WORDS`: ``file_path``, ``model_path``; not ``file_bytes``, nor an address such as ``json_path``:
:func:`~faultlib.detect.serving.blocking.server_words.addressing_path`) and is not an in-memory file opens it:
``blocking_file_io``, unless some ``async def`` awaits a call of it or of its package, or the name says it does not
open it (:data:`NOT_OPENING`). A URL is no evidence for this rule (measured: see :data:`PATH_WORDS`).

Installed packages (:mod:`~faultlib.detect.serving.blocking.installed`): when the package is installed and its source
was read, that reading decides, unless its distribution declares a synchronous I/O library
(:data:`SYNC_IO_REQUIREMENTS`, ``importlib.metadata``): then the code's evidence stands, the declaration added to it.
A declaration alone is no evidence.

Findings say it is an inference: ``evidence.guess`` (words) and ``evidence.inferred`` ``{"rule":
"constructed_with_endpoint" | "called_with_path", "type", "evidence": [{"file", "line", "function", "what",
"credential"}], "awaited_elsewhere": false}``. Inside a library followed by ``installed`` no guess counts, so the rule
does not run there.

Measured by ablation on the labelled corpus (``benchmarks/blocking_ablation.py``; numbers in ``benchmarks/HISTORY.md``): the
single-SDK families removed from the vocabulary, how many of their true positives these rules find alone, and the new
alarms they raise on the whole corpus. Cost: one scan per third-party type asked about (memoised per index), of the
modules whose source names its package.
"""

from __future__ import annotations

import ast
import datetime
import re
import sys

from faultlib.detect.serving.blocking.absent_methods import lacks_method
from faultlib.detect.serving.blocking.client_names import ASYNC_FIRST, NO_IO
from faultlib.detect.serving.blocking.stream_subscriptions import subscribes
from faultlib.detect.serving.blocking.coroutine_clients import used_as_coroutines
from faultlib.detect.serving.blocking.entries import _ASYNC_PARTS
from faultlib.detect.serving.blocking.made_handles import at, handle_method, made_evidence, module_calls, owner_part
from faultlib.detect.serving.blocking.model import Func, dotted
from faultlib.detect.serving.blocking.own_root import known_packages
from faultlib.detect.serving.blocking.namesakes import own_name
from faultlib.detect.serving.blocking.server_keys import keyed_server
from faultlib.detect.serving.blocking.sync_transports import transport_argument
from faultlib.detect.serving.blocking.server_words import (CREDENTIAL_WORDS, DB_WORDS, SERVER_WORDS,
                                                            addressing_path, named_words, words)

__all__ = ["SESSION_METHODS", "evidence_of", "site"]

SESSION_METHODS = frozenset({"login", "connect", "authenticate", "auth_log_in", "sign_in", "log_in"})
"""Methods whose call on the object says it holds a session with a server."""
LOCAL_PREFIXES = ("with_", "to_", "as_", "build", "construct", "configurable", "bind", "is_", "has_", "on_",
                  "register", "remove_handler", "copy")
"""Method-name prefixes of builders, converters, predicates and registrations: local state, no request
(``construct_event``: a payment SDK's webhook event checked against its signature, in memory; LangChain's
``configurable_fields``/``bind_tools`` return a new Runnable, https://python.langchain.com/api_reference/core/
runnables/langchain_core.runnables.base.Runnable.html). (``set_``
and ``add_`` are not among them: on a client they change the server's state, ``set_preferences``, ``add_magnet``.)"""
PREDICATE = re.compile(r"(is|has)[A-Z]")
"""A camelCase predicate (``isFinished``, ``hasErrors``): it reports state, like ``is_``/``has_``."""
NON_BLOCKING = frozenset({"blocking", "block"})
"""Keywords whose literal ``False`` asks a call not to wait."""
LOCAL = (NO_IO - {"get_channel", "get_user", "get_guild", "command"}) | {
    "append", "extend", "insert", "pop", "popitem", "clear", "sort", "reverse", "discard"}
"""Methods that touch local state (:data:`~faultlib.detect.serving.blocking.client_names.NO_IO`) but the chat
caches' getters and ``command``: those name asyncio chat frameworks' caches and decorators, already left out as
asyncio-first, while an unlisted client's ``get_user`` asks its server and its ``command(...)`` sends one; and a
container's mutators (a trait type's ``List(...)`` is a list at run time)."""
VALUE_PACKAGES = frozenset({"pydantic", "pydantic_core", "pydantic_settings", "attr", "attrs", "marshmallow",
                            "msgspec", "typing_extensions"})
"""Data-validation and value-class libraries: their objects hold values (``SecretStr(token)`` wraps a token;
``get_secret_value()`` returns it), they talk to no server (pydantic: "Data validation using Python type hints",
https://docs.pydantic.dev/; attrs, marshmallow, msgspec likewise). Held-out wave 37: 4 false alarms."""
CONFIG_SUFFIXES = ("Config", "Configuration", "Settings", "Options")
"""Class-name endings of configuration objects: they describe how a client or a crawler should work (what they
hold, how to serialise them: crawl4ai's ``CrawlerRunConfig.load``/``.dump``), they send nothing. Given a credentialed
object (``CrawlerRunConfig(extraction_strategy=LLMExtractionStrategy(api_token=...))``) they carry it to the code
that talks to the server; that code is the client. Held-out wave 40: 6 false alarms."""
PATH_WORDS = frozenset({"path", "file", "filename", "filepath", "fname"})
"""Words of the first argument of a package function (``createParser(path)``) or class-level constructor
(``Torrent.from_file(path)``) that name what it opens. Not URLs: measured by ablation, a package function given a
URL was 0 right of 4 (a graph database's driver factory connects lazily; a client's ``file(url)`` only wraps it)."""
NOT_OPENING = ("is_", "has_", "set_", "exists", "to_", "get_size", "getsize", "isfile", "isdir", "islink", "stat")
"""Package functions given a path that do not open it: predicates and single-inode metadata (``is_hidden(path)``,
``exists``: the labelling rules leave ``os.stat`` out), setters of a global (``set_tracking_uri(uri)``), and
conversions (``url2path``, ``path_to_url``: :data:`CONVERSION`)."""
NOT_OPENING_ENDINGS = ("exists", "match", "matches", "ratio", "distance", "similarity")
"""Endings of such names too: ``path_exists``, and matching a path's text against patterns (wcmatch's
``glob.globmatch(relative_path, pattern)``, ``fnmatch``: https://facelessuser.github.io/wcmatch/glob/#globmatch, "does
not access the file system" unless given ``REALPATH``; held-out wave 46), or measuring how alike two strings are
(fuzzywuzzy's and RapidFuzz's ``fuzz.ratio``/``token_sort_ratio(s1, s2)``, "Calculates the normalized Indel
similarity" of the two strings, https://rapidfuzz.github.io/RapidFuzz/Usage/fuzz.html; ``Levenshtein.distance``,
``jaro_similarity``: in-memory comparisons of names, held-out wave 61)."""
CONVERSION = re.compile(r"(^|_)(url|uri|path|str|bytes|json|dict|text|hex|b64)(2|_to_)(url|uri|path|str|bytes|json"
                        r"|dict|text|hex|b64)($|_)")
"""A conversion between in-memory forms (``url2path``, ``path_to_uri``); not ``send2trash`` (it moves the file) nor
``md2pdf(path, ...)`` (it renders and writes the PDF)."""
URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s{}]+")
"""A literal URL (the whole string; a log message mentioning ``ws://`` is no URL)."""
IN_MEMORY = frozenset({"io.BytesIO", "io.StringIO", "builtins.bytes", "builtins.bytearray", "builtins.memoryview"})
"""Types of a first argument that is content, not a path (``guess_mime(BytesIO(data))`` reads memory)."""

SYNC_IO_REQUIREMENTS = frozenset({"requests", "urllib3", "httplib2", "pycurl", "grpcio", "paramiko", "pymysql",
                                  "psycopg2", "psycopg2-binary", "pymongo", "mysql-connector-python", "websocket-client",
                                  "suds", "zeep", "boto3", "botocore", "pyserial", "paho-mqtt", "kafka-python"})
"""Distributions whose presence among a package's declared requirements says it does synchronous network or database
I/O (``importlib.metadata.requires``): a second kind of evidence, for an installed package."""

RULE = "constructed_with_endpoint"
"""``evidence.inferred.rule`` of the findings of this rule."""
_TEXT_METHODS = frozenset(dir(str)) | frozenset(dir(bytes)) | frozenset(
    m for t in (datetime.datetime, datetime.date, datetime.time, datetime.timedelta, int, float) for m in dir(t)
    if not m.startswith("_"))
"""Methods of the value types a record's fields hold (``user.name.split()``, ``contact.bday.isoformat()``): a call of
one through attributes is data, never a namespaced client's request."""
MAX_NAMESPACES = 2
"""Namespace attributes between a client and the method called (``client.torrents.info``: one)."""
MAX_SDK_NAMESPACES = 3
"""The same for a client of an SDK the vocabulary lists whole (:meth:`~faultlib.detect.serving.blocking.vocab.Merged.
whole_package`), whose generated API nests deeper (ElevenLabs' ``client.conversational_ai.knowledge_base.documents
.create_from_url``, https://elevenlabs.io/docs/api-reference/knowledge-base/create-from-url)."""
MAX_MODULES = 64
"""Modules scanned per type for its evidence (those whose source names its package), a bound that cuts, never
samples: past it the evidence found so far decides."""


def site(index, target: str, call: ast.Call, func: Func):
    """The :class:`~faultlib.detect.serving.blocking.sites.Site` of ``call`` (a call of the dotted name ``target``
    that no vocabulary rule judged) when ``target`` is a method of an inferred synchronous client, else None.
    ``target`` None: the call's receiver is reached through namespace attributes of a typed value
    (``driver.posts.create_post``)."""
    if index.installed is not None and index.installed.inside_library:
        return None  # inside a library's own code no guess counts (installed.py)
    if target is not None and _third_party(index, target):
        opened = _opens(index, target, call, func) or connecting_site(index, target, call, func)
        if opened is not None:
            return opened
    if not isinstance(call.func, ast.Attribute):
        return None
    if target is None:
        target = _namespaced(index, call.func, func)
        if target is None:  # a listed SDK's deeper namespaces (`client.conversational_ai.knowledge_base.documents`)
            deeper = _namespaced(index, call.func, func, MAX_SDK_NAMESPACES)
            target = deeper if deeper is not None and index.vocab.whole_package(_client_of(index, deeper)[0] or "") else None
        if target is None:
            return None
    elif call.func.attr != target.rpartition(".")[2]:
        return None
    return _client_call(index, target, call, func)


def _client_call(index, target: str, call: ast.Call, func: Func):
    owner, method = _client_of(index, target)
    if owner is None and isinstance(call.func, ast.Attribute) and _third_party(index, target) and index.type_of(
            call.func.value, func) == target.rpartition(".")[0]:  # an instance of a lower-case class (`ccxt.binance`)
        owner = target.rpartition(".")[0]
        if any(p.startswith(_ASYNC_PARTS) for p in owner.split(".")):
            return None  # an async twin (slack_bolt's `AsyncApp`) the class rule left out: not here either
    if owner is None or not handle_method(owner, method, _remote_method(method)) or _returns_at_once(call):
        return None
    if subscribes(owner, call):
        return None  # feed.trades(symbol=s, callback=on_tick): a stream subscribed (stream_subscriptions)
    if owner.rpartition(".")[2].endswith(CONFIG_SUFFIXES):
        return None
    if lacks_method(index, owner, target[len(owner) + 1:].partition(".")[0]):
        return None  # the installed library's class has no such method (absent_methods)
    found = evidence_of(index, owner)
    declared = _declared(index, owner.partition(".")[0]) if found else []
    if declared is None:
        return None  # installed, its source read and judged the call, and it declares no synchronous I/O library
    found = found + declared  # never alone: a library needing requests has local classes too (a tracer, a config)
    if not any(e["credential"] or (e["file"], e["function"]) != (func.module.path, func.qualname) for e in found):
        return None  # only an endpoint, in the function that uses it: a request's description built here (data)
    if used_as_coroutines(index, owner, "") or _package_awaited(index, owner.partition(".")[0]):
        return None
    from faultlib.detect.serving.blocking.sites import Site

    kind = "blocking_db" if any(words(e["what"]) & DB_WORDS for e in found) else "blocking_http"
    first = found[0]
    where = f" at {first['file']}:{first['line']}" if first["line"] else ""
    what = "what a third-party factory made" if owner.endswith("()") else "a third-party class"
    described = ("a class of an SDK the vocabulary lists whole, reached through a namespace it does not type,"
                 if index.vocab.owned(owner) else f"{what} no vocabulary entry describes,")
    guess = (f"inferred: `{owner.rpartition('.')[2]}` is {described} "
             f"given a server ({first['what']}{where}) and never awaited")
    return Site(kind, f"{target} ({guess})", func, call, guess,
                inferred={"rule": RULE, "type": owner, "evidence": found[:3], "awaited_elsewhere": False})


def _declared(index, top: str) -> list[dict] | None:
    """Evidence from the installed distribution of ``top``, beside the code's own (never alone: measured on the
    corpus, opentelemetry's tracers and instrumentors were taken for clients because one distribution of the
    namespace requires requests): ``[{"what": "declares requests", ...}]`` when it requires a synchronous network or
    database library (:data:`SYNC_IO_REQUIREMENTS`), so that the code's evidence stands even where the walk into the
    library's source found no blocker (a transport reached through a name it cannot type); ``[]`` when it is not
    installed; None when it is installed, its source was read, and it requires none of them: the walk into its
    source (:mod:`~faultlib.detect.serving.blocking.installed`) judged the call, and no finding is inferred."""
    installed = index.installed
    if installed is None:
        return []
    memo = index.__dict__.setdefault("_inferred_declared", {})
    if top not in memo:
        requires = [r for r in installed.requires(top) if r in SYNC_IO_REQUIREMENTS]
        memo[top] = [{"file": "", "line": 0, "function": "", "what": f"its installed distribution declares "
                      f"{requires[0]}", "credential": True}] if requires else []
    return memo[top] or (None if installed.has_source(top) else [])


def _third_party(index, target: str) -> bool:
    """``target``'s package is no package of the analysed code, the standard library or the vocabulary, and not
    asyncio-first."""
    top = target.partition(".")[0]
    return not (not top.isidentifier() or top in sys.stdlib_module_names or top in ("builtins", "typing")
                or top in VALUE_PACKAGES or top in known_packages(index) or own_name(index, target)
                or target.startswith(ASYNC_FIRST)
                or top.startswith(_ASYNC_PARTS))


def _opens(index, target: str, call: ast.Call, func: Func):
    """The site of a package function (``createParser(path)``) or a class-level call (``Torrent.from_file(path)``)
    whose first argument names a path or URL (:data:`PATH_WORDS`, a literal URL) -- with no positional argument, a
    keyword naming a path (:func:`_path_keyword`) --, when no ``async def`` awaits a call of it; else None."""
    parts = target.split(".")
    if (len(parts) < 2 or parts[-1][:1].isupper() or parts[-1].startswith("_") or "async" in parts[-1].lower()
            or parts[-1].lower().startswith(NOT_OPENING) or parts[-1].lower().endswith(NOT_OPENING_ENDINGS)
            or CONVERSION.search(parts[-1].lower())):
        return None
    if any(p[:1].isupper() for p in parts[1:-1]):  # a class-level call: the receiver is the class, not an instance
        if not (isinstance(call.func, ast.Attribute) and parts[-2][:1].isupper()
                and index.callee(call.func.value, func) == ".".join(parts[:-1])):
            return None
    if any(p.startswith(_ASYNC_PARTS) for p in parts):
        return None
    first = call.args[0] if call.args else _path_keyword(call)
    if first is None or isinstance(first, ast.Starred):
        return None
    if isinstance(first, ast.Constant):
        return None  # a literal: a URL is no evidence (PATH_WORDS), a literal path is a constant resource
    words = named_words(first, last=True) & PATH_WORDS
    if (not words or addressing_path(first) or index.type_of(first, func) in IN_MEMORY or _awaited_anywhere(index, target)
            or _package_awaited(index, parts[0]) or _declared(index, parts[0]) is None):
        return None
    from faultlib.detect.serving.blocking.sites import Site

    kind = "blocking_file_io"
    shown = " ".join(ast.unparse(first).split())[:60]
    guess = (f"inferred: `{parts[-1]}` of {parts[0]}, a package no vocabulary entry describes, is given "
             f"`{shown}` to open and never awaited")
    return Site(kind, f"{target} ({guess})", func, call, guess,
                inferred={"rule": "called_with_path", "type": target, "evidence": [
                    {"file": func.module.path, "line": call.lineno, "what": f"first argument `{shown}`"}],
                          "awaited_elsewhere": False})


def _path_keyword(call: ast.Call) -> ast.expr | None:
    """With no positional argument, the value of the first keyword that names a path (``from_config(config_path=p)``,
    its last word in :data:`PATH_WORDS`; its value must name a path as the positional one does): the same argument
    given by name (held-out wave 67: a wake-word model loaded
    with ``from_config(config_path=...)`` where ``from_config(path)`` was found)."""
    return next((k.value for k in call.keywords if k.arg is not None and k.arg.rsplit("_", 1)[-1].lower() in PATH_WORDS
                 and not addressing_path(ast.Name(id=k.arg))), None)


def connecting_site(index, target: str, call: ast.Call, func):
    """The site of ``pkg.connect(...)``/``pkg.connections.connect(...)`` (a package-level function named ``connect``
    of a package nobody listed) given a server or credentials: PEP 249's ``connect`` "constructor for creating a
    connection to the database" (https://peps.python.org/pep-0249/#connect) opens the connection before it returns
    (``blocking_db`` when the evidence names a database, else ``blocking_http``: a tunnel's or a broker's connect),
    unless some ``async def`` awaits a call of the package. Not ``from_url``/``driver``: those
    factories connect lazily (a graph database's driver, redis-py's ``from_url``), their first request blocks."""
    from faultlib.detect.serving.blocking.sites import Site

    parts = target.split(".")
    if parts[-1] != "connect" or any(owner_part(p) for p in parts[1:-1]) or not _third_party(index, target):
        return None
    top = parts[0]
    what = _constructed_with(index, call, func, top, 0)
    if not what or _package_awaited(index, top) or _declared(index, top) is None:
        return None
    guess = (f"inferred: `{parts[-1]}` of {top}, a package no vocabulary entry describes, is given {what[0]}: it "
             "opens a connection")
    kind = "blocking_db" if words(what[0]) & DB_WORDS else "blocking_http"  # as the inference's other rule
    return Site(kind, f"{target} ({guess})", func, call, guess, inferred={
        "rule": "connect_function", "type": target, "awaited_elsewhere": False, "evidence": [
            {"file": func.module.path, "line": call.lineno, "function": func.qualname, "what": what[0],
             "credential": what[1]}]})


def _awaited_anywhere(index, target: str) -> bool:
    """Whether an ``async def`` of the analysed files awaits a call of the dotted name ``target`` (memoised)."""
    memo = index.__dict__.setdefault("_inferred_awaited", {})
    if target not in memo:
        top = target.partition(".")[0]
        memo[target] = any(
            isinstance(node, ast.Await) and isinstance(node.value, ast.Call)
            and index.callee(node.value.func, f) == target
            for module in index.distinct_modules() if top in module.source
            for f in module.all_functions if f.is_async for node in f.nodes)
    return memo[target]


def _package_awaited(index, top: str) -> bool:
    """Whether an ``async def`` of the analysed files awaits a call into the package ``top`` (a function of it, or a
    method of an instance of one of its classes) that is not named as an async twin (``AsyncClient``, ``aio``), or is
    decorated by the package (a web framework's route, a bot framework's command): the package is asyncio-first, and
    its plain calls set state or schedule work (memoised per package)."""
    memo = index.__dict__.setdefault("_inferred_async_packages", {})
    if top not in memo:
        memo[top] = False
        prefix = f"{top}."
        for module in index.distinct_modules():
            if top not in module.source or memo[top]:
                continue
            for func in module.all_functions:
                if not func.is_async:
                    continue
                if any(_decorator_of(index, d, func).startswith(prefix) for d in func.node.decorator_list):
                    memo[top] = True  # @get("/login") async def ...: the package runs the code's coroutines
                    break
                for node in func.nodes:
                    if not (isinstance(node, ast.Await) and isinstance(node.value, ast.Call)):
                        continue
                    callee = index.callee(node.value.func, func)
                    if (isinstance(callee, str) and callee.startswith(prefix)
                            and not any(p.startswith(_ASYNC_PARTS) for p in callee.split("."))):
                        memo[top] = True
                        break
                if memo[top]:
                    break
    return memo[top]


def _decorator_of(index, decorator: ast.expr, func: Func) -> str:
    """The dotted name a decorator of ``func`` resolves to (``@router.get(...)``: its callee), or ``""``."""
    found = index.callee(decorator.func if isinstance(decorator, ast.Call) else decorator, func.parent or func)
    return found if isinstance(found, str) else ""


def _client_of(index, target: str) -> tuple[str | None, str]:
    """``(class, method)`` for ``target`` = ``pkg.mod.Class[.namespace...].method`` naming a third-party class, or
    ``(None, method)``."""
    parts = target.split(".")
    method = parts[-1]
    if len(parts) < 3:
        return None, method
    cut = next((i for i in range(len(parts) - 2, 0, -1) if owner_part(parts[i])), None)  # a class or a made handle
    if cut is None or any(owner_part(p) or p.startswith("_") for p in parts[cut + 1:-1]):
        return None, method  # no class, or a class inside a namespace (a nested type, data)
    owner = ".".join(parts[:cut + 1])
    if any(p.startswith(_ASYNC_PARTS) for p in parts[:cut + 1]):
        return None, method
    if cut < len(parts) - 2 and index.vocab.whole_package(owner):
        return owner, method  # a namespace of an SDK the vocabulary lists whole (`client.voices.get`), see site()
    if not _third_party(index, target) or index.vocab.owned(owner):
        return None, method
    return owner, method


def _namespaced(index, expr: ast.Attribute, func: Func, most: int = MAX_NAMESPACES) -> str | None:
    """``TYPE.namespace.method`` for ``x.namespace.method`` with ``x`` of the third-party type ``TYPE`` (at most
    :data:`MAX_NAMESPACES` lower-case attributes between them), or None; never a method of a string, bytes, a
    date/time or a number (:data:`_TEXT_METHODS`)
    (``user.name.split()``: the attribute is data)."""
    if expr.attr in _TEXT_METHODS:
        return None
    attrs = [expr.attr]
    value = expr.value
    while isinstance(value, ast.Attribute) and len(attrs) <= most:
        if value.attr.startswith("_") or value.attr[:1].isupper():
            return None
        attrs.insert(0, value.attr)
        typed = index.type_of(value.value, func)
        if isinstance(typed, str):
            return ".".join([typed, *attrs])
        if typed is not None:
            return None
        value = value.value
    return None


def _remote_method(method: str) -> bool:
    """A method that may send a request (not local: :data:`LOCAL`, :data:`LOCAL_PREFIXES`, a camelCase predicate
    ``isFinished``/``hasErrors`` (:data:`PREDICATE`), an alternative constructor ``from_*``, a method whose name says
    async)."""
    return not (method.startswith(("_", "from_")) or method[:1].isupper() or method in LOCAL
                or "async" in method.lower() or PREDICATE.match(method) is not None
                or method.startswith(LOCAL_PREFIXES) or (method.startswith("get_") and method.endswith("_client")))


def _returns_at_once(call: ast.Call) -> bool:
    """``call`` passes ``blocking=False`` or ``block=False``: the caller asked it not to wait (the standard library's
    spelling, ``Lock.acquire(blocking=False)``, ``Queue.get(block=False)``:
    https://docs.python.org/3/library/threading.html#threading.Lock.acquire,
    https://docs.python.org/3/library/queue.html#queue.Queue.get; a downloader's ``start(blocking=False)`` runs in
    its own threads and returns)."""
    return any(k.arg in NON_BLOCKING for k in call.keywords
               if isinstance(k.value, ast.Constant) and k.value.value is False)


def evidence_of(index, owner: str, depth: int = 0) -> list[dict]:
    """Where the analysed code gives an instance of the third-party class ``owner`` a server: ``[{"file", "line",
    "what"}]`` (see the module docstring), memoised per index; empty when it never does."""
    memo = index.__dict__.setdefault("_inferred_evidence", {})
    if owner in memo:
        return memo[owner]
    memo[owner] = []  # asked again while answering (a client passed to itself): no evidence from that
    top, last = owner.partition(".")[0], owner.rpartition(".")[2]
    found: list[dict] = []
    scanned = 0
    for module in index.distinct_modules():
        if top not in module.source or scanned >= MAX_MODULES:
            continue
        scanned += 1
        for func, node in module_calls(module):
            if isinstance(node.func, ast.Attribute) and node.func.attr in SESSION_METHODS:
                if index.type_of(node.func.value, func) == owner:
                    found.append(at(module, func, node, f"`.{node.func.attr}(...)` called on it", True))
                continue
            if (dotted(node.func) or [""])[-1] != last and not isinstance(node.func, ast.Name):
                continue
            if index.callee(node.func, func) != owner:
                continue
            what = _constructed_with(index, node, func, top, depth)
            if what:
                found.append(at(module, func, node, what[0], what[1]))
    found += made_evidence(index, owner, depth, lambda c, f: _constructed_with(index, c, f, top, depth), evidence_of)  # factories
    memo[owner] = found
    return found


def _constructed_with(index, call: ast.Call, func: Func, top: str, depth: int) -> tuple[str, bool] | None:
    """What in the constructor call ``call`` gives the object a server (the first), and whether any of it is a
    credential (not only an endpoint), or None."""
    found: list[tuple[str, bool]] = []

    def named(what: str, words: set[str]) -> None:
        if words & SERVER_WORDS:
            found.append((what, bool(words & CREDENTIAL_WORDS)))

    for keyword in call.keywords:
        if keyword.arg:
            named(f"`{keyword.arg}=`", words(keyword.arg))
        elif isinstance(keyword.value, ast.Name):  # Harness(**params), params = {"client_secret": ...} here
            for key in _dict_keys(func, keyword.value.id):
                named(f"the option {key!r}", words(key))
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(arg, ast.Dict):  # Driver({"url": ..., "token": ...}); not a schema {"host": t.String()}
            for key, value in zip(arg.keys, arg.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and not _validator(value):
                    named(f"the option {key.value!r}", words(key.value))
        elif isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            if URL.fullmatch(arg.value):
                found.append(("a URL", False))
        elif arg in call.args and named_words(arg) & SERVER_WORDS:
            named(f"`{' '.join(ast.unparse(arg).split())[:60]}`", named_words(arg))
        elif depth < 2 and not found:
            typed = index.type_of(arg, func)
            inner = evidence_of(index, typed, depth + 1) if isinstance(typed, str) and typed.partition(".")[
                0] == top else []
            if any(e["credential"] for e in inner):  # API(Client(host=..., secret=...)): its client's credentials
                found.append((f"a `{typed.rpartition('.')[2]}` given credentials", True))
    if not found:
        transport = transport_argument(index, call, func)  # ElevenLabs(httpx_client=httpx.Client(...))
        if transport is not None:
            found.append((f"a synchronous HTTP transport, {transport}", True))
    return (found[0][0], any(c for _, c in found) or keyed_server(call)) if found else None


def _validator(value: ast.expr | None) -> bool:
    """A schema's value for a key: a type or validator class (``t.String()``, ``t.IP``, ``int``), not a setting."""
    if isinstance(value, ast.Call):
        value = value.func
    parts = dotted(value) if value is not None else None
    return bool(parts) and (parts[-1][:1].isupper() or parts[-1] in ("str", "int", "float", "bool"))


def _dict_keys(func: Func, name: str) -> list[str]:
    """The constant string keys the local ``name`` of ``func`` is given: ``name = {"k": ...}``, ``name["k"] = ...``."""
    keys = []
    for node in func.nodes:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if isinstance(node.value, ast.Dict):
                keys += [k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                        and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str)):
                    keys.append(t.slice.value)
    return keys
