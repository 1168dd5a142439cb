"""The entries of ``check blocking``'s vocabulary: :class:`Family` rules and :class:`Vocabulary` tables.

Third-party packages build these and register them in the entry-point group ``faultlib.blocking_calls``
(see :mod:`faultlib.detect.serving.blocking.vocab`, which re-exports both).
"""

from __future__ import annotations

import ast

import re
from dataclasses import dataclass, field
from typing import Mapping

_ASYNC_PARTS = ("Async", "aio", "asyncio", "asynchronous")
NAMED_ONLY = ("__next__", "__init__", "__getitem__", "__setitem__", "__delitem__", "__enter__")
"""Special methods a :class:`Family` covers only when it names them (never through ``*``)."""


@dataclass(frozen=True)
class Family:
    """Methods of client types that block.

    Attributes:
        types: exact dotted type names (``redis.Redis``) or, ending in ``.``, a package prefix
            (``langchain`` matches ``langchain_core.prompts.PromptTemplate`` too when given as ``langchain``).
        methods: ``{method: kind}``; the key ``*`` means every method not in ``except_``; besides public
            names, ``__call__`` (calling an instance), ``__next__`` (iterating one), ``__init__`` (constructing
            one: a model class that loads its weights) and ``__getitem__``/``__setitem__``/``__delitem__``
            (``db[key]``, ``db[key] = value``, ``del db[key]`` on a persistent mapping) may be named, never by ``*``;
            so may a single-underscore method a library's subclasses are meant to call (LangChain MongoDB's
            ``_similarity_search_with_score``), only when named.
        source: the documentation that says these calls block (URL).
        except_: methods of a ``*`` family that do no I/O (``pipeline``, ``get_paginator``).
        resources: attributes of an instance are sub-clients of the same family (``client.chat.completions``):
            True for every attribute (and a sub-client's method then returns a request of the same client, the
            Google discovery style ``api.people().get()``), or the set of the names of its namespaces
            (qbittorrent-api's ``client.torrents``, mattermostdriver's ``driver.posts``): only those attributes are
            sub-clients, and what a method returns is data, not a client.
        data_actions: with ``resources=True``, what a method returns is data all the same: sub-clients are reached
            through attributes only (boto3's resources: ``dynamodb.Table(name)`` is one, and the dict its action
            ``table.get_item(...)`` returns is the response, not a request still to be sent).
        prefix: ``types`` are name prefixes (``transformers.``) rather than exact names.
        package: ``types`` are package names: the family owns every module and class beneath them
            (``wolframalpha`` owns ``wolframalpha.Client``) except their async twins (a name part starting
            with ``Async``, ``aio``, ``asyncio`` or ``asynchronous``); with ``*`` it also owns the package's
            functions (``whois.query``) but never a class called as a constructor (``gtts.gTTS(...)``) nor a
            method whose name says it is async (``ask_async``).
        functions: with ``package``, the package's module-level functions are owned too (``whois.query``);
            False: only instances of its classes.
        suffix: with ``prefix``, only class names ending so (``Pipeline``: ``diffusers.StableDiffusionPipeline``).
        patterns: ``{regular expression: kind}`` for methods a client generates from its API's endpoints, so that
            no list can name them (ccxt's ``sapi_post_margin_order_oco``); a public method not in ``methods``
            whose whole name matches one has its kind.
    """

    types: tuple[str, ...]
    methods: Mapping[str, str]
    source: str
    except_: frozenset[str] = frozenset()
    resources: bool | frozenset[str] = False
    data_actions: bool = False
    prefix: bool = False
    package: bool = False
    functions: bool = True
    suffix: str | tuple[str, ...] = ()
    patterns: Mapping[str, str] = field(default_factory=dict)

    def owns(self, type_name: str) -> bool:
        if self.package:
            if not self.functions and not type_name.rpartition(".")[2][:1].isupper():
                return False  # only the package's classes: its helper functions do no I/O (gspread.utils...)
            return (type_name.startswith(tuple(f"{t}." for t in self.types)) or type_name in self.types) and not any(
                p.startswith(_ASYNC_PARTS) for p in type_name.split("."))
        if self.prefix:
            return type_name.startswith(self.types) and (not self.suffix or type_name.endswith(self.suffix))
        if type_name in self.types:
            return True
        for base in self.types if self.resources else ():  # a sub-client, not its async twin (`client.aio.models`)
            if type_name.startswith(f"{base}."):
                parts = type_name[len(base) + 1:].split(".")
                if self.resources is not True and not set(parts) <= self.resources:
                    continue  # driver.users.get_user(...)[...]: data a namespace's method returned
                return not any(p.startswith(_ASYNC_PARTS) for p in parts)
        return False

    def namespace(self, attr: str) -> bool:
        """``instance.attr`` is a sub-client of this family (see ``resources``)."""
        return bool(self.resources) and not attr.startswith("_") and (self.resources is True
                                                                       or attr in self.resources)

    def kind_of(self, method: str) -> str | None:
        if method in self.except_ or (method.startswith("_") and method not in ("__call__", *NAMED_ONLY)
                                      and (method.startswith("__") or method not in self.methods)):
            return None
        if self.package and method not in self.methods and (
                method[:1].isupper() or method.startswith("from_") or "async" in method.lower()):
            return None  # a constructor (no I/O) or the SDK's own coroutine, unless named: from_documents embeds
        if method in NAMED_ONLY:
            return self.methods.get(method)
        if method in MODEL_DATA_METHODS and method not in self.methods:
            return None  # CompositionPlan.model_validate(d): an SDK's pydantic type validating a dict, no request
        found = self.methods.get(method, self.methods.get("*"))
        if found is None and not method.startswith("_"):
            found = next((kind for pattern, kind in self.patterns.items() if re.fullmatch(pattern, method)), None)
        return found


MODEL_DATA_METHODS = frozenset({"model_validate", "model_validate_json", "model_validate_strings", "model_construct",
                                "model_dump", "model_dump_json", "model_copy", "model_json_schema", "model_fields_set",
                                "parse_obj", "parse_raw", "construct", "schema", "schema_json"})
"""The data-model methods of pydantic (v2 ``model_*`` and their v1 names) that a ``*`` family leaves out unless it
names them: an SDK's request and response types are pydantic models (the Fern- and Stainless-generated SDKs), and these
methods validate, build or dump the model in memory ("Validate a pydantic model instance", https://docs.pydantic.dev/
latest/api/base_model/#pydantic.BaseModel.model_validate); the request is the client method the model is given to.
Held-out wave 61: ``CompositionPlan.model_validate`` of elevenlabs, 4 false alarms."""


TESTS = ("positive", "true", "given", "other_than", "one_of", "unset", "contains", "lacks", "at_least", "text",
         "fetched")
"""What :class:`BlocksWhen` can ask of an argument: a number above zero, any true value, anything but ``None``, any
value but those in its ``values`` (``nlp.add_pipe("sentencizer")`` builds a rule-based component; any other factory
name may load a model); ``one_of``: one of the values in ``values`` (``docker.from_env(version="auto")`` asks the
daemon for its version; ``version="1.41"`` pins it and sends nothing); ``unset``: the call blocks when the argument is a false literal (``None``, ``""``) or, with
``absent``, left out -- a variable counts as set (``pc.Index(name)`` looks its host up over HTTP; ``pc.Index(name,
host=url)`` does not); ``contains``: a string holding one of ``values`` (``Path(d).glob("**/*.py")`` walks the whole
tree below; ``glob("*.py")`` lists one directory): the written text of a string or f-string argument (a local
bound once to one is read through, :func:`~faultlib.detect.serving.blocking.sites.bound_text`); another variable
counts, as for the other tests; ``lacks``: an argument of flags whose expression names none of ``values``
(``os.waitpid(pid, os.WNOHANG)`` returns at once, ``os.waitpid(pid, 0)`` waits for the child): a variable holding the
flags counts; ``at_least``: a number no smaller than ``values[0]`` (a work factor: ``pbkdf2_hmac(..., 2048)`` costs
about a millisecond, ``600_000`` rounds most of a second); ``text``: a string (``Metadata(doi)`` looks the
identifier up over HTTP, ``Metadata(record)`` reads a dict): a literal, or what
:func:`~faultlib.detect.serving.blocking.text_args.textual` shows to be one; any other variable does not count;
``fetched``: the whole body of a page the function fetched (``BeautifulSoup(response.text)`` parses a remote page of
any length; a fragment the code holds is milliseconds): what
:func:`~faultlib.detect.serving.blocking.fetched_pages.fetched_body` shows to be one; nothing else counts."""


ANY_ARGUMENT = "*"
"""The :attr:`BlocksWhen.name` that asks whether the call passes any argument at all."""


@dataclass(frozen=True)
class BlocksWhen:
    """A call of ``calls`` that blocks only for some values of one argument (``psutil.cpu_percent(interval=1)``
    sleeps a second; without ``interval`` it returns at once).

    Attributes:
        name: the argument's keyword; ``*`` with the test ``given``: any argument at all (``pymupdf.open()`` with none
            makes a new empty document in memory; with a file name or a stream it reads and parses one).
        position: its position when passed positionally (None: keyword only).
        test: one of :data:`TESTS`; an argument that is not a literal (a variable) counts as blocking, except
            for ``unset``, ``text`` and ``fetched``.
        absent: whether the call blocks when the argument is left out (its default's verdict).
        values: for the test ``other_than``, the literal values that do not block; for ``one_of``, those that do;
            for ``contains``, the substrings that do.
    """

    name: str
    position: int | None = None
    test: str = "positive"
    absent: bool = False
    values: tuple = ()

    def blocks(self, args: list, keywords: dict, literal) -> bool:
        """Whether a call passing ``args`` (positional expressions) and ``keywords`` (``{name: expression}``; a
        ``**`` spread under ``None``) blocks. ``literal(expr)`` is the expression's constant value, or raises
        ``ValueError`` when it is not one."""
        if self.name == ANY_ARGUMENT:
            return bool(args) or bool(keywords)
        if self.test == "contains":
            return self._contains(args, keywords)
        if self.test == "lacks":
            return self._lacks(args, keywords)
        if self.name in keywords:
            value = keywords[self.name]
        elif self.position is not None and self.position < len(args):
            value = args[self.position]
        else:
            return self.absent if None not in keywords else True  # f(**opts): unknown, may pass it
        try:
            constant = literal(value)
        except ValueError:  # a variable: may be anything the test accepts (for unset: it is set; for text: unknown)
            return self.test not in ("unset", "text", "fetched")
        if self.test == "positive":
            return isinstance(constant, (int, float)) and not isinstance(constant, bool) and constant > 0
        if self.test == "true":
            return bool(constant)
        if self.test == "other_than":
            return constant not in self.values
        if self.test == "one_of":
            return constant in self.values
        if self.test == "at_least":
            return not isinstance(constant, (int, float)) or constant >= self.values[0]
        if self.test == "unset":
            return not constant
        if self.test == "text":
            return isinstance(constant, str)
        if self.test == "fetched":  # sites.argument_blocks turned the argument into True when it is a fetched page
            return constant is True
        return constant is not None

    def _lacks(self, args: list, keywords: dict) -> bool:
        """The ``lacks`` test: no name or attribute in the argument's expression is one of ``values``
        (``os.WNOHANG | os.WUNTRACED`` names ``WNOHANG``); an argument left out counts as ``absent`` says."""
        value = keywords.get(self.name)
        if value is None and self.position is not None and self.position < len(args):
            value = args[self.position]
        if value is None:
            return self.absent
        named = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        named |= {n.attr for n in ast.walk(value) if isinstance(n, ast.Attribute)}
        return not named & set(self.values)

    def _contains(self, args: list, keywords: dict) -> bool:
        """The ``contains`` test: the written text of a string or f-string argument holds one of ``values``
        (an f-string by its literal parts); any other expression may hold anything and counts; an argument left out
        counts as ``absent`` says."""
        value = keywords.get(self.name)
        if value is None and self.position is not None and self.position < len(args):
            value = args[self.position]
        if value is None:
            return self.absent
        if isinstance(value, ast.JoinedStr):
            pieces = [v.value for v in value.values if isinstance(v, ast.Constant)]
        elif isinstance(value, ast.Constant):
            pieces = [value.value]
        else:
            return True
        return any(isinstance(p, str) and any(v in p for v in self.values) for p in pieces)


@dataclass(frozen=True)
class Vocabulary:
    """A table of blocking calls (see the module docstring); ``when``: ``{dotted name of calls: BlocksWhen}``, the
    entries of ``calls`` that block only for some values of an argument; ``reads``: ``{TYPE.attribute: (kind,
    source)}``, properties of a third-party type whose mere read does the I/O (Celery's ``AsyncResult.state`` asks
    the result backend)."""

    calls: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    families: tuple[Family, ...] = ()
    returns: Mapping[str, str] = field(default_factory=dict)
    when: Mapping[str, BlocksWhen] = field(default_factory=dict)
    reads: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def problem(self) -> str | None:
        """What makes this table unusable (a plugin's table is checked before it joins the vocabulary), or None.

        ``calls`` maps dotted names to ``(kind, source)`` string pairs, ``returns`` dotted names to type names,
        ``families`` holds :class:`Family` objects whose ``types`` are strings and ``methods`` maps strings to
        strings. A junk entry (``{"time.sleep": None}``) once replaced the built-in one and hid its findings."""
        def strs(value) -> bool:
            return isinstance(value, str) and bool(value)

        if not all(isinstance(t, Mapping) for t in (self.calls, self.returns, self.reads)):
            return "calls, returns and reads must be mappings"
        for table, entries in (("calls", self.calls), ("reads", self.reads)):
            for name, entry in entries.items():
                if not strs(name) or not (isinstance(entry, tuple) and len(entry) == 2 and all(map(strs, entry))):
                    return (f"{table}[{name!r}] must map a dotted name to a (kind, source) pair of strings, "
                            f"got {entry!r}")
        for name, type_name in self.returns.items():
            if not (strs(name) and strs(type_name)):
                return f"returns[{name!r}] must map a dotted name to a type name, got {type_name!r}"
        if not isinstance(self.when, Mapping):
            return "when must be a mapping"
        for name, cond in self.when.items():
            if not (strs(name) and isinstance(cond, BlocksWhen) and strs(cond.name) and cond.test in TESTS
                    and (cond.position is None or (isinstance(cond.position, int) and cond.position >= 0))):
                return f"when[{name!r}] must be a BlocksWhen with a name, a position >= 0 or None, a test in {TESTS}"
        if not isinstance(self.families, tuple):
            return "families must be a tuple of Family"
        for i, fam in enumerate(self.families):
            if not isinstance(fam, Family):
                return f"families[{i}] is a {type(fam).__name__}, not a Family"
            if not (isinstance(fam.types, tuple) and all(map(strs, fam.types)) and strs(fam.source)
                    and isinstance(fam.methods, Mapping)
                    and all(strs(m) and strs(k) for m, k in fam.methods.items())):
                return (f"families[{i}] needs types (a tuple of names), methods ({{method: kind}} strings) and a "
                        "source URL")
            if not (isinstance(fam.resources, bool) or (isinstance(fam.resources, frozenset)
                                                         and all(map(strs, fam.resources)))):
                return f"families[{i}].resources must be True, False or a frozenset of attribute names"
            if not isinstance(fam.data_actions, bool):
                return f"families[{i}].data_actions must be True or False"
            if not (isinstance(fam.patterns, Mapping) and all(strs(p) and strs(k) for p, k in fam.patterns.items())):
                return f"families[{i}].patterns must map regular expressions to kinds (strings)"
            for pattern in fam.patterns:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    return f"families[{i}].patterns[{pattern!r}] is not a regular expression: {exc}"
        return None
