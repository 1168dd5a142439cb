"""What a third-party factory makes: a client or a handle of one, typed by the factory's name (issue 17).

Many SDKs hand out their clients from factories, not constructors: ``GraphDatabase.driver(uri, auth=...)``,
``pkg.connect(dsn)``, ``pkg.from_url(url)``, ``create_client(url, key)``; and a client hands out handles of its server
(``client.get_or_create_collection(name)``, ``driver.session()``, ``conn.cursor()``, ``pc.Index(name)``) whose
methods are the requests. The analysis typed a constructor's result (``pkg.Client(...)``: ``"pkg.Client"``) but not
a factory's, so the inference of synchronous clients (:mod:`~faultlib.detect.serving.blocking.inferred`) had no type
to attach the code's evidence to. Here:

* :func:`made_type`: the type of what a call of a package nobody listed returns, when the called name says it makes a
  client or a handle, ``"<the call's dotted name>()"`` (the convention of
  :mod:`~faultlib.detect.serving.blocking.package_handles`): a name whose last word is a handle noun
  (:data:`HANDLE_NOUNS`) and whose first word is a making verb (:data:`MAKING_VERBS`) or which is the noun alone
  (``driver``, ``session``, ``client``, ``cursor``, ``get_collection``, ``create_client``), or a connecting name
  (:data:`CONNECTING`: ``connect``, ``from_url``, ``from_env``...). The naming conventions are the ones SDKs document
  for their entry points: PEP 249 ``connect()`` returning a Connection whose ``cursor()`` executes
  (https://peps.python.org/pep-0249/#connect), ``from_url``/``from_env`` alternative constructors (redis-py's
  ``from_url``, docker's ``from_env``: "a client configured from environment variables"), the ``get_*``/``create_*``
  handle getters of vector and object stores, and drivers' ``session()``.
* :func:`made_evidence`: where the code gives such an object a server: the factory call's own arguments (the same
  words as a constructor's), a connecting factory name (``connect(...)``, ``from_env()``: it opens or configures a
  connection by definition), the object it was obtained from (a handle of a client given a server is a handle of
  that server: ``Pinecone(api_key=k).Index(name)``), a class named as a client (``PersistentClient``:
  :mod:`~faultlib.detect.serving.blocking.client_names`' rule), a value declared with the type and built with
  credentials (``ex: tradelib.kraken = cls({"apiKey": k})``), and the package itself configured with credentials
  (``payco.api_key = KEY``, ``vecstore.init(api_key=KEY)``: its classes' requests use them).

Where the library is installed (:mod:`~faultlib.detect.serving.blocking.installed`), its own source says what the
factory returns: the return annotation (``def driver(uri) -> Driver``) or the class its body builds (``return
cls(uri)`` of a ``@classmethod``), and the analysis then walks that class's methods in the library's source; the name
convention above is the fallback where it is not.

Only for packages the vocabulary does not describe, not the analysed code's or the standard library's, and never for
an asyncio-first package or a name with an async part (``redis.asyncio.from_url``, ``aioboto3``, ``motor``,
``AsyncVendor``): the vocabulary's own return types stay authoritative, and an async client's handles are awaited.
"""

from __future__ import annotations

import ast
import re
import sys

from faultlib.detect.serving.blocking.client_names import ASYNC_FIRST, client_kind
from faultlib.detect.serving.blocking.entries import _ASYNC_PARTS
from faultlib.detect.serving.blocking.model import Func, Module, dotted, nodes_of
from faultlib.detect.serving.blocking.namesakes import own_name
from faultlib.detect.serving.blocking.own_root import known_packages
from faultlib.detect.serving.blocking.scopes import _module_func
from faultlib.pyflow.walk import children

__all__ = ["CONNECTING", "HANDLE_NOUNS", "MAKING_VERBS", "handle_method", "made_evidence", "made_type", "module_calls", "at", "owner_part"]

HANDLE_NOUNS = frozenset({"client", "connection", "conn", "driver", "session", "cursor", "collection", "table",
                          "database", "db", "bucket", "index", "channel", "topic", "queue", "container", "graph",
                          "namespace", "transaction", "tx", "dataset", "directory"})
"""Last words of a factory's name that say it hands out a client or a handle of a server's resource (a dataset or a
data directory of an artifact store: TrueFoundry's ``client.get_data_directory_by_fqn(fqn)`` whose ``download``
transfers it, https://docs.truefoundry.com/docs/creating-and-using-data-directories)."""
LOOKUP_WORD = "by"
"""A factory's name may end with how it looks the handle up (``get_collection_by_name``, ``get_data_directory_by_fqn``):
the words from ``by`` on name the key, not the handle."""
MAKING_VERBS = frozenset({"get", "create", "open", "new", "make", "init", "connect", "start"})
"""First words of such a name (``get_or_create_collection``, ``create_client``, ``open_table``); not ``list_``,
``delete_``, ``drop_`` (those return data or nothing)."""
CONNECTING = frozenset({"connect", "from_url", "from_uri", "from_dsn", "from_env", "from_environment",
                        "from_connection_string", "client", "driver", "connection"})
"""Factory names that make a connection or a client by definition (PEP 249's ``connect``, the ``from_url``/
``from_env`` alternative constructors, ``boto3.client``-style ``client(service)``, a driver factory): the object they
make talks to a server even when the code passes no endpoint (it comes from the environment or a default)."""
CLIENT_WORDS = frozenset({"client", "connection", "conn", "driver", "session"})
"""Handle nouns that name the client itself: a factory so named (``get_client()``) is evidence of a server."""
CONFIGURING = frozenset({"init", "configure", "setup", "set_api_key", "set_credentials", "login", "authenticate",
                         "connect"})
"""Package-level functions that configure the package's default connection (``vecstore.init(api_key=...)``,
``connections.connect(host=...)``): given a server or credentials, every class of the package uses them."""


def foreign(index, target: str) -> bool:
    """``target``'s package is none the vocabulary describes, not the analysed code's, not the standard library's, and
    neither it nor any part of the name is asyncio-first."""
    top = target.partition(".")[0]
    return not (not top.isidentifier() or top in sys.stdlib_module_names or top in ("builtins", "typing")
                or top in known_packages(index) or own_name(index, target) or target.startswith(ASYNC_FIRST)
                or any(p.startswith(_ASYNC_PARTS) or "async" in p.lower() for p in target.split(".")))


def _words(name: str) -> list[str]:
    return [w for w in name.lower().split("_") if w]


def makes_handle(name: str) -> bool:
    """Whether a function or method named ``name`` makes a client or a handle (see the module docstring)."""
    words = _words(name)
    if name in CONNECTING:
        return True
    if LOOKUP_WORD in words[1:]:
        words = words[:words.index(LOOKUP_WORD, 1)]
    return bool(words) and words[-1] in HANDLE_NOUNS and (len(words) == 1 or words[0] in MAKING_VERBS)


def made_type(index, target: str) -> str | None:
    """The type of what the call of the dotted name ``target`` (a package function, a class-level function or a method
    of a typed instance of a package nobody listed) makes when its name says it makes a client or a handle: the class
    the installed library's source returns (:meth:`~faultlib.detect.serving.blocking.installed.Installed.returned`),
    else ``"<target>()"``; None for other names."""
    owner, _, last = target.rpartition(".")
    if not owner or last.startswith("_") or last[:1].isupper() or not makes_handle(last) or not foreign(index, target):
        return None
    returned = getattr(index.installed, "returned", None)  # installed here: the library's source says which class
    return (returned(target) if returned is not None else None) or f"{target}()"


def handle_method(owner: str, method: str, remote: bool) -> bool:
    """Whether ``owner.method(...)`` may send a request, ``remote`` being the inference's verdict by the method's name:
    a handle's bare-noun maker only builds it (``driver.session()``, ``conn.cursor()``: PEP 249's cursor and a
    driver's session are local until they execute), while ``run`` on what a factory made is a query
    (``session.run(cypher)``), not a bot's ``client.run()`` from a script's main."""
    if makes_handle(method) and len(_words(method)) == 1 and method not in CONNECTING - {"client"}:
        return False
    return remote or (owner.endswith("()") and method == "run")


def owner_part(part: str) -> bool:
    """Whether a part of a dotted type name is a type: a class (capitalised) or what a factory made (``driver()``)."""
    return part[:1].isupper() or part.endswith("()")


def made_evidence(index, owner: str, depth: int, constructed_with, evidence_of) -> list[dict]:
    """Evidence that the object typed ``owner`` talks to a server beyond its constructor's arguments (see the module
    docstring): ``[{"file", "line", "function", "what", "credential"}]``. ``constructed_with(call, func)`` judges the
    arguments of a call that made it (:func:`~faultlib.detect.serving.blocking.inferred._constructed_with`) and
    ``evidence_of(index, owner, depth)`` is :func:`~faultlib.detect.serving.blocking.inferred.evidence_of` (handed in:
    that module builds on this one)."""

    found: list[dict] = []
    top, last = owner.partition(".")[0], owner.rpartition(".")[2]
    factory = owner[:-2] if owner.endswith("()") else None
    if factory is not None and factory.rpartition(".")[2] in CONNECTING | {
            f"get_{w}" for w in CLIENT_WORDS} | {f"create_{w}" for w in CLIENT_WORDS}:
        found.append({"file": "", "line": 0, "function": "", "credential": True,
                      "what": f"made by `{factory.rpartition('.')[2]}(...)`, a factory of connections by its name"})
    elif factory is None and client_kind(index.vocab, owner, "request") is not None:
        found.append({"file": "", "line": 0, "function": "", "credential": True,
                      "what": f"`{last}`, a client by its class name"})
    parent = (factory or owner).rpartition(".")[0]
    if "." in parent and owner_part(parent.rpartition(".")[2]) and depth < 4:
        inner = evidence_of(index, parent, depth + 1)
        if inner:
            found.append({**inner[0], "what": f"obtained from a `{parent.rpartition('.')[2]}` given a server "
                                              f"({inner[0]['what']})"})
    scanned = 0
    for module in index.distinct_modules():
        if top not in module.source or scanned >= 64:
            continue
        scanned += 1
        by_name = _calls_by_name(module, module_calls)
        for func, node in by_name.get(factory.rpartition(".")[2], []) if factory is not None else []:
            if index.callee(node.func, func) == factory:
                what = constructed_with(node, func)
                if what:
                    found.append(at(module, func, node, what[0], what[1]))
        for func, node in (pair for name in CONFIGURING for pair in by_name.get(name, [])):
            if isinstance(node.func, ast.Attribute) and _package_function(index, node.func, func, top):
                what = constructed_with(node, func)
                if what:
                    found.append(at(module, func, node, f"the package configured by `{node.func.attr}(...)` with "
                                                         f"{what[0]}", what[1]))
        for func, node in _declared_calls(module):
            if index.annotation_type(node.annotation, module) == owner:
                what = constructed_with(node.value, func)
                if what:
                    found.append(at(module, func, node, f"declared `{last}`, built with {what[0]}", what[1]))
        found += _configured_attributes(module, top)
    return found


def _calls_by_name(module, calls) -> dict[str, list]:
    """The calls of ``module`` (``calls(module)``: ``(func, node)`` pairs) by the last name of what they call
    (memoised per module: one pass, whatever the number of types asked about)."""
    found = module.__dict__.get("_calls_by_name")
    if found is None:
        found = module.__dict__["_calls_by_name"] = {}
        for func, node in calls(module):
            found.setdefault((dotted(node.func) or [""])[-1], []).append((func, node))
    return found


def _declared_calls(module) -> list:
    """``(func, node)`` for every ``x: T = call(...)`` in a function of ``module`` (memoised per module)."""
    found = module.__dict__.get("_declared_calls")
    if found is None:
        found = module.__dict__["_declared_calls"] = [
            (func, node) for func in module.all_functions for node in nodes_of(func, ast.AnnAssign)
            if isinstance(node.value, ast.Call)]
    return found


def _package_function(index, expr: ast.Attribute, func, top: str) -> bool:
    """``pkg.init``/``pkg.connections.connect``: a function of the package (not a method of an instance)."""
    parts = dotted(expr)
    if not parts or parts[0] not in func.module.imports:
        return False
    found = index.callee(expr, func)
    return isinstance(found, str) and found.startswith(f"{top}.") and not any(
        p[:1].isupper() or p.endswith("()") for p in found.split(".")[1:-1])


def _configured_attributes(module, top: str) -> list[dict]:
    """``pkg.api_key = ...`` at any level of ``module`` (``pkg`` imported as itself): the package's credentials
    (memoised per module and package)."""
    from faultlib.detect.serving.blocking.server_words import CREDENTIAL_WORDS, ENDPOINT_WORDS, words as words_of

    if module.imports.get(top) != top or not re.search(rf"\b{re.escape(top)}\.\w+\s*=[^=]", module.source):
        return []  # the text first: no `top.attr = ` anywhere, no walk
    memo = module.__dict__.get("_configured_packages")
    if memo is None:  # one walk per module: every `package.attr = ...` whose attribute names a server or credential
        memo = module.__dict__["_configured_packages"] = {}
        for node in ast.walk(module.tree):
            for target in node.targets if isinstance(node, ast.Assign) else ():
                parts = dotted(target) if isinstance(target, ast.Attribute) else None
                if (parts and len(parts) == 2 and module.imports.get(parts[0]) == parts[0]
                        and words_of(parts[1]) & (CREDENTIAL_WORDS | ENDPOINT_WORDS)):
                    memo.setdefault(parts[0], []).append({
                        "file": module.path, "line": node.lineno, "function": "<module>", "credential": True,
                        "what": f"`{parts[0]}.{parts[1]} = ...`, the package given a server"})
    return memo.get(top, [])


def at(module: Module, func: Func, node: ast.AST, what: str, credential: bool) -> dict:
    """One piece of evidence: ``{"file", "line", "function", "what", "credential"}`` at ``node`` in ``func``."""
    return {"file": module.path, "line": node.lineno, "function": func.qualname, "what": what,
            "credential": credential}


def module_calls(module: Module):
    """Every call of ``module`` with the function it is in (module-level code in a stand-in function)."""
    for func in module.all_functions:
        for node in nodes_of(func, ast.Call):
            yield func, node
    top = module.__dict__.get("_inferred_top")
    if top is None:
        holder = Func(module, ast.FunctionDef(name="<module>", args=ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=[],
            decorator_list=[], lineno=1, col_offset=0), "<module>")
        scope = _module_func(holder)
        top = module.__dict__["_inferred_top"] = (scope, [n for n in _top_level_nodes(module.tree)
                                                         if isinstance(n, ast.Call)])
    scope, calls = top
    for node in calls:
        yield scope, node


def _top_level_nodes(tree: ast.AST):
    todo = children(tree)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield node
        todo.extend(children(node))
