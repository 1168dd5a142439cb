"""The type of an expression in the analysed code (see :mod:`~faultlib.detect.serving.blocking.index`):
a :class:`Klass` of the analysed files or a dotted name, inferred from constructors, annotations,
assignments, returns, loaders and the vocabulary's return types. Mixed into
:class:`~faultlib.detect.serving.blocking.index.Index`."""

from __future__ import annotations

import ast
import re

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.annotated_items import indexed_item, next_item
from faultlib.detect.serving.blocking.appended_items import appended_item
from faultlib.detect.serving.blocking.awaited_locals import built_through_local
from faultlib.detect.serving.blocking.class_tables import table_base
from faultlib.detect.serving.blocking.client_names import reference_type
from faultlib.detect.serving.blocking.declared_globals import declared_global
from faultlib.detect.serving.blocking.hung_attrs import hung_attribute
from faultlib.detect.serving.blocking.infer import CONTAINER_GETTERS
from faultlib.detect.serving.blocking.libraries import rpc
from faultlib.detect.serving.blocking.narrowing import narrowed
from faultlib.detect.serving.blocking.operator_results import operator_result, summed
from faultlib.detect.serving.blocking.offload_results import offloaded_result, streamed_response
from faultlib.detect.serving.blocking.libraries.responses import STREAMED_RESPONSE
from faultlib.detect.serving.blocking.library_objects import library_object
from faultlib.detect.serving.blocking.listed_elements import listed_element
from faultlib.detect.serving.blocking.lazy_generators import forwarded_type
from faultlib.detect.serving.blocking.made_handles import made_type
from faultlib.detect.serving.blocking.module_annotations import module_annotated
from faultlib.detect.serving.blocking.context_vars import GETTERS as CONTEXT_GETTERS, context_value
from faultlib.detect.serving.blocking.memory_connections import MEMORY_CONNECTION, memory_sqlite_type
from faultlib.detect.serving.blocking.memory_spools import MEMORY_SPOOL, memory_spool
from faultlib.detect.serving.blocking.rate_limiters import limiter_type
from faultlib.detect.serving.blocking.store_factories import store_factory_type
from faultlib.detect.serving.blocking.package_handles import returned_handle
from faultlib.detect.serving.blocking.returned_modules import returned_module
from faultlib.detect.serving.blocking.repositories import repository_result
from faultlib.detect.serving.blocking.orm_queries import orm_instance
from faultlib.detect.serving.blocking.model import UNPACKED, Func, Klass, Module, Type, _is_local, dotted
from faultlib.detect.serving.blocking.shapes import is_generator, is_property
from faultlib.detect.serving.blocking.signal_hooks import signal_application
from faultlib.detect.serving.blocking.textual_apps import QUERIES, queried_type
from faultlib.detect.serving.blocking.tornado_settings import settings_value
from faultlib.detect.serving.blocking.app_items import app_item
from faultlib.detect.serving.blocking.hass_data import hass_item
from faultlib.detect.serving.blocking.self_returns import SELF_TYPES, self_return
from faultlib.detect.serving.blocking.scopes import (_LOADED_MODEL, MAX_RESOLVE_DEPTH, _enclosing_scope, _module_func,
                                                    _unannotated_param)


HF_HEAD = re.compile(r"For(CausalLM|ConditionalGeneration|Seq2SeqLM|MaskedLM|SequenceClassification|"
                     r"TokenClassification|QuestionAnswering|ImageClassification|SpeechSeq2Seq|CTC)$")
"""A model head named the transformers way (``<Architecture>For<Task>``, https://huggingface.co/docs/transformers/
main/en/model_doc/auto): a library's subclass of a transformers model (LLaVA's ``LlavaLlamaForCausalLM``) loads and
runs like one, so its ``from_pretrained`` returns a ``transformers.PreTrainedModel``."""


class TypeOf:
    """Expression types over the index's modules (the methods :class:`Index` needs ``self`` to provide)."""

    def type_of(self, expr: ast.expr, func: Func | None, depth: int = 0) -> Type | None:
        """The type of the value of ``expr`` evaluated in ``func``, when the analysis can tell (memoised per node)."""
        if depth > MAX_RESOLVE_DEPTH:
            return None
        if func is not None and func._types is None:
            self.local_types(func)  # first, so that no placeholder below stands in for one of its answers
        key = (id(expr), id(func))
        if key in self._type:
            return self._type[key]
        self._type[key] = None  # a cycle (x = x.y) answers "unknown"
        found = self._type_of(expr, func, depth)
        if self._inferring:
            del self._type[key]
        else:
            self._type[key] = found
        return found

    def _type_of(self, expr: ast.expr, func: Func | None, depth: int) -> Type | None:
        module = func.module if func is not None else None
        if isinstance(expr, ast.Name):
            if func is not None:
                found = narrowed(self, expr, func) or self.local_types(func).get(expr.id)  # isinstance(x, T): a T
                if found is not None:
                    return found
                if _unannotated_param(func, expr.id) or module_annotated(self, func, expr.id):  # from the call sites
                    return self.infer.parameter(func, expr.id) or (  # app.on_startup.append(init): init's app
                        signal_application(self, func, expr.id) if _unannotated_param(func, expr.id) else None)
                outer = _enclosing_scope(func, expr.id)
                if outer is not None:  # a closure's free variable: the enclosing function's local
                    return self.type_of(expr, outer, depth + 1)
            if module is not None and not (func and _is_local(func, expr.id)):
                declared = declared_global(self, expr.id, module)  # `client: DockerClient`, set in main()
                if declared is not None:
                    return declared
            if module is not None and expr.id in module.globals and not (func and _is_local(func, expr.id)):
                return self.type_of(module.globals[expr.id], None if func is None else _module_func(func), depth + 1)
            if module is not None and expr.id in module.imports and not (func and _is_local(func, expr.id)):
                return self._imported_global(module.imports[expr.id], depth) or library_object(  # from app.db
                    module.imports[expr.id])  # import engine; from celery import current_task (a Task)
            return None
        if isinstance(expr, ast.Subscript) and UNPACKED in expr.__dict__ and func is not None:
            return self.stores.unpacked(expr.value, expr.__dict__[UNPACKED], func)  # a global of `a, b = load()`
        if isinstance(expr, ast.Attribute) and func is not None and narrowed(self, expr, func) is not None:
            return narrowed(self, expr, func)  # assert isinstance(self.db, Engine): an Engine here
        if isinstance(expr, ast.Subscript) and func is not None and (
                kept := app_item(self, expr.value, expr.slice, func) or hass_item(self, expr, func)) is not None:
            return kept  # request.app["db"] of an aiohttp application, hass.data[DOMAIN][key] of Home Assistant
        if isinstance(expr, (ast.Attribute, ast.Subscript)):
            owner = self.type_of(expr.value, func, depth + 1)
            if isinstance(owner, Klass) and isinstance(expr, ast.Attribute):
                return self.attribute_type(owner, expr.attr) or (  # shared = Shared(); shared.web = Session() in a
                    self.infer.stored_attribute(expr, func) if func else None)  # startup hook, read in a route
            if isinstance(owner, str):  # a sub-client: client.chat.completions, mongo["db"]["collection"]
                if isinstance(expr, ast.Subscript):  # doc[n] of a fitz Document: the Page its __getitem__ returns
                    return self.vocab.sub_resource(owner, "[]") or self.vocab.returns.get(f"{owner}.__getitem__")
                return self.vocab.sub_resource(owner, expr.attr) or (
                    (hung_attribute(self, expr, func, owner) or self.infer.stored_attribute(expr, func))
                    if func else None)  # ctx = SimpleNamespace(); ctx.web = Session() at startup
            if owner is None and isinstance(expr, ast.Subscript) and func is not None:
                return (settings_value(self, expr.value, expr.slice, func)  # a Tornado handler's self.settings["db"]
                        or self.infer.element_type(expr.value, func)  # {"pdf": PdfLoader(p), ...}[ext]
                        or appended_item(self, expr.value, func)  # frames = helper() of appended frames; frames[0]
                        or listed_element(self, expr.value, func)  # [d / n for n in names if ...][0]
                        or indexed_item(self, expr, func)  # route.slots[0] of `slots: list[Slot]`
                        or self.stores.stored_element(expr.value, expr.slice, func))  # self.models[k] = Asr()
            if owner is None and func is not None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
                klass = self.callee(expr.value, func, depth + 1)  # Cache.table = db.Table(n): the class's own
                if isinstance(klass, Klass):  # attribute, stored through its name (index.attributes)
                    found = self.attribute_type(klass, expr.attr)
                    if found is not None:
                        return found
            if owner is None and func is not None and isinstance(expr, ast.Attribute):
                holder = self._module_of(expr.value, func)
                if holder is not None:  # shared.model, set by `shared.model, shared.tok = load(name)` elsewhere
                    return self.stores.module_attribute(holder, expr.attr)
            if owner is None and func is not None:  # app.state.model = Model() in a startup hook
                return self.infer.stored_attribute(expr, func) or (  # bot.api = API(), read as self.bot.api
                    hung_attribute(self, expr, func, None) if isinstance(expr, ast.Attribute) else None)
            return None
        if isinstance(expr, ast.IfExp):  # Wrapper(x) if x else None
            return self.type_of(expr.body, func, depth + 1) or self.type_of(expr.orelse, func, depth + 1)
        if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):  # client or Client()
            for value in expr.values:
                found = self.type_of(value, func, depth + 1)
                if found is not None:
                    return found
            return None
        operated = operator_result(self, expr, func, depth) if isinstance(expr, ast.BinOp) else None
        if operated is not None:  # first + second of pydub AudioSegments: an AudioSegment (operator_results.py)
            return operated
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):  # Path(__file__).parent / "model.json"
            left = self.type_of(expr.left, func, depth + 1)  # files("pkg") / "page.html": a Traversable
            return left if left in ("pathlib.Path", "importlib.resources.abc.Traversable") else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):  # LangChain: prompt | model | parser
            for side in (expr.left, expr.right):
                found = self.type_of(side, func, depth + 1)
                if isinstance(found, str) and found.startswith("langchain"):
                    return "langchain_core.runnables.base.RunnableSequence"
            return None
        if isinstance(expr, ast.Await):  # the result of a coroutine of the analysed files: what it returns
            call = self.awaited_call(expr, func)
            if call is None:  # await asyncio.to_thread(fn, ...): what fn returns
                return (offloaded_result(self, expr, func) or repository_result(self, expr.value, func)
                        or orm_instance(self, expr.value, func))  # await User.get(...) of a Tortoise model
            target = self.callee(call.func, func)
            return None if target is None else self.awaited_type(target)
        if isinstance(expr, ast.Call):
            callee = _generic_origin(expr.func)  # AtomicAgent[In, Out](config): an AtomicAgent
            if func is not None and (first := next_item(self, expr, func)) is not None:
                return first  # next(iter(route.usable())) of `-> list[Slot]`: a Slot
            if (dotted(callee) == ["getattr"] and len(expr.args) >= 2 and isinstance(expr.args[1], ast.Constant)
                    and isinstance(expr.args[1].value, str) and expr.args[1].value.isidentifier()):
                attr = expr.__dict__.setdefault("_faultlib_getattr", ast.copy_location(ast.Attribute(
                    value=expr.args[0], attr=expr.args[1].value, ctx=ast.Load()), expr))  # getattr(x, "a", None)
                return self.type_of(attr, func, depth + 1)
            if isinstance(callee, ast.Attribute):
                owner = self.type_of(callee.value, func, depth + 1)
                if owner is not None and callee.attr in vocab.SAME_TYPE_METHODS:
                    return owner
                if callee.attr in vocab.METHOD_RETURNS:
                    return vocab.METHOD_RETURNS[callee.attr]
                if callee.attr in CONTEXT_GETTERS and func is not None and (
                        held := context_value(self, callee.value, func)) is not None:
                    return held  # SETTINGS.get() of `SETTINGS: ContextVar[Settings]`: a Settings
                if callee.attr in QUERIES and func is not None and (
                        queried := queried_type(self, expr, func)) is not None:
                    return queried  # self.query_one(Viewer): a Viewer (Textual's typed queries)
                if owner is None and callee.attr in CONTAINER_GETTERS and func is not None:
                    found = settings_value(self, callee.value, expr.args[0] if expr.args else None, func) or (
                        self.infer.element_type(callee.value, func)) or self.stores.stored_element(
                        callee.value, expr.args[0] if expr.args else None, func) or hass_item(  # loaders.get(ext)
                        self, expr, func)  # hass.data[DOMAIN].get("coordinator")
                    if found is not None:
                        return found
            elif isinstance(callee, ast.Name) and func is not None:
                scope = func if _is_local(func, callee.id) else _enclosing_scope(func, callee.id)
                if scope is not None and _unannotated_param(scope, callee.id, False):
                    found = self.infer.callable_return(scope, callee.id)  # factory: Callable[..., Session]
                    if found is not None:
                        return found
            target = self.callee(callee, func, depth + 1) if func is not None else None
            if isinstance(target, Klass):  # a generated stub kept beside the service (x_pb2_grpc.py): its channel
                stub = self._local_stub(target, expr, func, depth) if target.qualname.endswith("Stub") else None
                return stub or target
            if not isinstance(target, Func) and func is not None and isinstance(expr.func, ast.Subscript):
                base = table_base(self, expr.func.value, func)  # ROUTERS[name](...): the classes' shared base
                if base is not None:
                    return base
            if isinstance(target, Func):
                if target.cls is not None and target.node.returns is not None:
                    found = self_return(self, target, callee, func, depth)  # -> Self: the receiver's class
                    if found is not None:
                        return found
                if isinstance(callee, ast.Attribute) and isinstance(owner, Klass) and target.cls is not None:
                    found = self.generics.returned(target, owner)  # -> T on a Manager[SileroVad]
                    if found is not None:
                        return found
                if isinstance(callee, ast.Attribute) and is_property(target):  # self.db_session(): the property's
                    value = self.return_type(target, depth + 1)  # value (a sessionmaker) is what is called
                    return self.vocab.returns.get(f"{value}.__call__") if isinstance(value, str) else None
                return self.return_type(target, depth + 1)
            if target == "builtins.sum":  # sum(segments) of pydub AudioSegments: an AudioSegment
                return summed(self, expr, func, depth)
            if isinstance(target, str):
                memory = memory_sqlite_type(self.vocab, target, expr, func)
                if memory is not None:  # sqlite3.connect(":memory:") and its cursors: no disk behind them
                    return memory
                if memory_spool(target, expr):  # SpooledTemporaryFile(max_size=0): a buffer in memory
                    return MEMORY_SPOOL
                limiter = limiter_type(self, target, expr, func, depth)  # FixedWindowRateLimiter(RedisStorage(u))
                if limiter is not None:
                    return limiter
                store = store_factory_type(target)  # FAISS.load_local(...), store.as_retriever(): LangChain's
                if store is not None and target not in self.vocab.returns:
                    return store
                if streamed_response(self, expr, func):  # requests.post(url, stream=True): its body still unread
                    return STREAMED_RESPONSE
                if target in self.vocab.returns:
                    made = self._own_subclass(target, callee, func, depth)
                    return made if made is not None else self.vocab.returns[target]
                instance = self._imported_global(target, depth)  # SessionLocal() imported from app.database
                if isinstance(instance, str):
                    return self.vocab.returns.get(f"{instance}.__call__")
                owner, _, last = target.rpartition(".")
                if owner and self.vocab.request_of(owner, last):
                    return target  # a sub-client's method returns a request of the same client: api.people().get()
                if last == "from_pretrained" and (owner.startswith("transformers.") or HF_HEAD.search(owner)):
                    named = owner.rpartition(".")[2]  # AutoModelForTokenClassification is a model, no tokenizer
                    return ("transformers.PreTrainedTokenizer" if "Tokenizer" in named or "Processor" in named
                            else "transformers.PretrainedConfig" if owner.endswith("Config")
                            else "transformers.PreTrainedModel")
                if (last in vocab.LOAD_METHODS or last.startswith("from_")) and isinstance(callee, ast.Attribute):
                    made = self.callee(callee.value, func, depth + 1) if func is not None else None
                    if isinstance(made, Klass):  # MFModel.from_pretrained(...) inherited from a hub mixin: an MFModel
                        return made
                if (last in vocab.LOAD_METHODS or last.startswith("from_")) and vocab.is_third_party_instance(owner):
                    return owner  # the convention: AutoencoderKL.from_pretrained(...), RetrievalQA.from_chain_type(...)
                if owner and _LOADED_MODEL.match(last) and not owner.startswith("builtins."):
                    return f"{owner}.Model"  # whisperx.load_model(...), mlflow.pyfunc.load_model(...): its model
                if last.endswith("Stub") and func is not None:  # a generated gRPC stub: its channel decides
                    stub = rpc.stub_type(target, self._channel_type(expr, func, depth))
                    if stub is not None:
                        return stub
                if owner.startswith("langchain") and owner.rpartition(".")[2].startswith("Runnable"):
                    return owner  # RunnablePassthrough.assign(...), RunnableParallel.with_config(...): a Runnable
                if not last[:1].isupper():  # index.as_query_engine(): the package's query engine
                    return (returned_handle(self.vocab, target) or made_type(self, target)  # driver.session()
                            or reference_type(self.vocab, target))  # a guessed client's collection(name)
                return self.vocab.spelling(target) if not target.startswith("builtins.") else None
            if (target is None and func is not None and isinstance(callee, ast.Attribute)
                    and (callee.attr.startswith("from_") or callee.attr in vocab.LOAD_METHODS)):
                made = self.callee(callee.value, func, depth + 1)  # MyCLIP.from_pretrained(name): a MyCLIP, the
                if isinstance(made, Klass):  # constructor classmethod inherited from a base outside the files
                    return made
            if target is None and func is not None and not isinstance(callee, ast.Lambda):
                instance = self.type_of(callee, func, depth + 1)  # calling an instance: a sessionmaker() factory
                if isinstance(instance, str):
                    return self.vocab.returns.get(f"{instance}.__call__")
        return None

    def _own_subclass(self, target: str, callee: ast.expr, func: Func | None, depth: int) -> Klass | None:
        """A class of the analysed files when ``target`` is an alternate constructor it inherits from a library base
        (``JsonStore.open(path)`` with ``class JsonStore(lmdbm.Lmdb)``: the vocabulary says ``Lmdb.open`` returns
        an ``Lmdb``, so on the subclass it returns the subclass, whose own overrides then run)."""
        if not isinstance(callee, ast.Attribute) or func is None:
            return None
        made = self.callee(callee.value, func, depth + 1)
        owner = target.rpartition(".")[0]
        return made if isinstance(made, Klass) and self.vocab.returns[target] == owner else None

    def _channel_type(self, made: ast.Call, func: Func | None, depth: int) -> Type | None:
        """The type of the channel a generated gRPC stub is built on (its first argument or ``channel=``)."""
        channel = made.args[0] if made.args else next((k.value for k in made.keywords if k.arg == "channel"), None)
        return self.type_of(channel, func, depth + 1) if channel is not None and func is not None else None

    def _local_stub(self, klass: Klass, made: ast.Call, func: Func | None, depth: int) -> Type | None:
        """:data:`~faultlib.detect.serving.blocking.libraries.rpc.SYNC_STUB` for a generated stub class of the
        analysed files (``x_pb2_grpc.py`` committed beside the client) built on a synchronous channel: its methods
        are the channel's multi-callables (``channel.unary_unary(...)`` in the stub's ``__init__``), as for the
        same stub imported from an installed package."""
        return rpc.stub_type(f"{klass.module.name}.{klass.qualname}", self._channel_type(made, func, depth))

    def awaited_call(self, expr: ast.expr, func: Func | None) -> ast.Call | None:
        """The call in ``await f(...)`` when ``f`` is an ``async def`` of the analysed files (what it returns is the
        awaited value), else None: an awaitable of a library or a task may resolve to anything."""
        if not (isinstance(expr, ast.Await) and isinstance(expr.value, ast.Call)) or func is None:
            return None
        target = self.callee(expr.value.func, func)
        return expr.value if isinstance(target, Func) and isinstance(target.node, ast.AsyncFunctionDef) else None

    def _module_of(self, expr: ast.expr, func: Func) -> Module | None:
        """The analysed module ``expr`` names (``shared`` after ``from modules import shared``), or None."""
        parts = dotted(expr)
        if not parts or _is_local(func, parts[0]) or parts[0] not in func.module.imports:
            return None
        found = self.resolve_parts(parts, func.module, func)
        return found if isinstance(found, Module) else None

    def _imported_global(self, name: str, depth: int) -> Type | None:
        """The type of the global ``pkg.mod.NAME`` of an analysed module (an imported variable), followed through a
        module that imports it from another (a package's ``__init__`` re-exporting it; held-out wave 80)."""
        owner, _, last = name.rpartition(".")
        module = self.modules.get(owner)
        if module is None or depth > MAX_RESOLVE_DEPTH:
            return None
        declared = declared_global(self, last, module)  # `udB: Database` there, set by a start-up function
        if declared is None and last not in module.globals and module.imports.get(last, name) != name:
            # a package re-exporting a global (`from pkg.exchange import exchange` in pkg/__init__.py, even under
            # its submodule's name: the package's attribute wins over the submodule, rebound_submodules.py)
            return self._imported_global(module.imports[last], depth + 1)
        if declared is not None or last not in module.globals:
            return declared
        return self.type_of(module.globals[last], self.infer.module_func(module), depth + 1)

    def _dependency(self, default: ast.expr | None, func: Func) -> Type | None:
        """``param = Depends(dep)``: FastAPI passes what ``dep`` returns (or yields), whatever the annotation says
        (https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/)."""
        if not (isinstance(default, ast.Call) and default.args and (dotted(default.func) or [""])[-1] == "Depends"):
            return None
        if not str(self.callee(default.func, func) or "").startswith("fastapi."):
            return None
        dep = self.callee(default.args[0], func)
        if isinstance(dep, Klass):
            return dep
        if not isinstance(dep, Func):
            return None
        for node in dep.nodes:
            if isinstance(node, (ast.Yield, ast.YieldFrom)) and node.value is not None:
                found = self.type_of(node.value, dep)
                if found is not None:
                    return found
        return self.return_type(dep)

    def awaited_type(self, coroutine: Func) -> Type | None:
        """What ``await coroutine(...)`` gives: its annotated type, else the object its body builds and returns
        (``client = await get_client()`` of a helper that constructs a sync SDK client). An annotation naming a class
        of a library (a base or mixin, ``qbittorrentapi.TorrentsAPIMixIn``) gives way to the class of that same
        library the body builds (``qbittorrentapi.Client``): the concrete object is what the caller's calls run on."""
        annotated = self.annotation_type(coroutine.node.returns, coroutine.module)
        if annotated is not None and not isinstance(annotated, str):
            return annotated
        built = self._built(coroutine)
        if annotated is None:
            return built
        same_library = isinstance(built, str) and built.split(".")[0] == annotated.split(".")[0]
        return built if same_library else annotated

    def _built(self, coroutine: Func) -> Type | None:
        """The class whose constructor makes what ``coroutine`` returns: ``return Client(...)`` or ``return x`` of a
        local ``x = Client(...)``. Only constructors named from the module (``qba.Client``, ``requests.Session``):
        inferring the coroutine's locals could re-enter the locals of the function being typed (handlers await each
        other) and leave them half known; a chain off such a constructed local, ``return db.client.table(n)``, is
        typed with the constructor in its place (:mod:`~faultlib.detect.serving.blocking.awaited_locals`)."""
        for node in coroutine.nodes:
            if not (isinstance(node, ast.Return) and node.value is not None):
                continue
            values = [node.value]
            if isinstance(node.value, ast.Name):
                values = [n.value for n in coroutine.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                          and isinstance(n.targets[0], ast.Name) and n.targets[0].id == node.value.id]
            for value in values:
                parts = dotted(value.func) if isinstance(value, ast.Call) else None
                if not parts or _is_local(coroutine, parts[0]):
                    through = built_through_local(self, coroutine, value)  # db = Store(); return db.client.table(n)
                    if through is not None:
                        return through
                    continue  # only a module-level name (an import, a class): a local would need the locals
                target = self.callee(value.func, coroutine)
                if isinstance(target, Klass):
                    return target
                if isinstance(target, str) and target.rpartition(".")[2][:1].isupper():
                    return self.vocab.returns.get(target) or self.vocab.spelling(target)
                if isinstance(target, str) and target in self.vocab.returns:  # a factory the vocabulary types:
                    return self.vocab.returns[target]  # `return build("drive", "v3")`, `return sqlite3.connect(p)`
        return None

    def return_type(self, func: Func, depth: int = 0) -> Type | None:
        found = self.annotation_type(func.node.returns, func.module)
        if found in SELF_TYPES:  # -> Self: an instance of the method's class (self_returns)
            found = func.cls
        if found is not None or depth > MAX_RESOLVE_DEPTH:
            return found
        forwarded = forwarded_type(self, func, depth) if is_generator(func) else None
        if forwarded is not None:  # for s in segments: yield s -- the lazy iterable it forwards
            return forwarded
        memory = None
        for node in func.nodes:
            if isinstance(node, ast.Return) and node.value is not None:
                found = self.type_of(node.value, func, depth + 1)
                if found == MEMORY_CONNECTION:  # one branch's in-memory database: another's may be on disk
                    memory = found
                elif found is not None:
                    return found
        return memory or returned_module(func)  # `import oss2 as m; return m`: the library's module itself


def _generic_origin(callee: ast.expr) -> ast.expr:
    """The class of a subscripted generic called as a constructor (``Agent[In, Out]`` -> ``Agent``: a name whose
    last part is capitalised), else ``callee`` itself (``handlers[name]`` stays a lookup)."""
    if isinstance(callee, ast.Subscript) and (dotted(callee.value) or [""])[-1][:1].isupper():
        return callee.value
    return callee
