"""Which blocking calls run on the event loop: every ``async def`` (and every sync function handed to
the loop as a callback) is an entry; from each, the calls of its body are followed into the sync
functions, methods and constructors of the analysed files, depth first, each function once.

Off the loop, never followed: a function *passed* to ``asyncio.to_thread``, ``loop.run_in_executor``,
``executor.submit``, ``anyio.to_thread.run_sync``, ``run_in_threadpool`` (a ``lambda`` passed there
included); the body of a nested ``def`` until it is called; another ``async def`` (an entry of its
own, analysed once). Awaiting changes nothing for a sync call: ``await`` only suspends at the
awaitable the call *returns*, the call itself has already run on the loop.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.libraries.responses import STREAMED_ITERATORS
from faultlib.detect.serving.blocking.class_tables import picked_methods
from faultlib.detect.serving.blocking.composed_mixins import sibling_implementations
from faultlib.detect.serving.blocking.async_closures import closure_runs, factory_names
from faultlib.detect.serving.blocking.awaited_sync import awaited_sync_call
from faultlib.detect.serving.blocking.callers import loop_entry, note_entry
from faultlib.detect.serving.blocking.index import Func, Index, Klass, dotted
from faultlib.detect.serving.blocking.held_locks import contended_locks
from faultlib.detect.serving.blocking.hook_params import calls_hook
from faultlib.detect.serving.blocking.imported_tools import imported_tools
from faultlib.detect.serving.blocking.loop_callbacks import loop_callback
from faultlib.detect.serving.blocking.palette_tuples import unpacked_commands
from faultlib.detect.serving.blocking.metaclasses import constructor_functions
from faultlib.detect.serving.blocking.inherited import called_instance
from faultlib.detect.serving.blocking.choices import factory_choices, picked, union_members
from faultlib.detect.serving.blocking.dispatch import dispatched, lacks, property_reads, receiver_in
from faultlib.detect.serving.blocking.model import aliases
from faultlib.detect.serving.blocking.model_refs import run_site
from faultlib.detect.serving.blocking.iteration import handed_back, offloaded_generators, waiting_iterations
from faultlib.detect.serving.blocking.line_parsers import line_parser
from faultlib.detect.serving.blocking.property_sites import blocking_reads
from faultlib.detect.serving.blocking.named_dispatch import named_methods
from faultlib.detect.serving.blocking.returned_classes import returned_class_constructors
from faultlib.detect.serving.blocking.shapes import (MODEL_VERBS, class_parameter, consumed_streams,
                                                     flush_listeners, flushes, is_abstract, is_generator, is_poll,
                                                     is_super_call, may_be_forward, model_verb_on_parameter, on_self,
                                                     registry_of, stores)
from faultlib.detect.serving.blocking.body_calls import BodyCalls, Budget, Offload
from faultlib.detect.serving.blocking.decorated import decorator_wrappers
from faultlib.detect.serving.blocking.extension_setups import extension_setups
from faultlib.detect.serving.blocking import inferred
from faultlib.detect.serving.blocking.library_params import parameter_target
from faultlib.detect.serving.blocking.sites import Site, any_of_site, argument_blocks, named_site
from faultlib.detect.serving.blocking.passed import called_here
from faultlib.detect.serving.blocking.wrappers import on_loop
from faultlib.detect.serving.blocking.subclass_bindings import subclass_bound_site
from faultlib.detect.serving.blocking.sync_fallbacks import fallback_hooks, store_fallback
from faultlib.detect.serving.blocking.unbuilt_classes import built_overrides
from faultlib.detect.serving.blocking.template_namespaces import template_functions
from faultlib.detect.serving.blocking.own_libraries import described_call

MAX_CHAIN = 64          # sync calls followed from one entry; a longer chain makes the report incomplete
MAX_OPERATIONS = 300_000  # calls examined in all; past it the report says complete: false
MAX_PATHS = 16  # distinct paths kept per site: a path a later filter drops (a branch never taken) leaves the others


Step = tuple[Func, int]
"""A function on the path and the line of the call it makes to the next one."""


@dataclass
class Reachability(BodyCalls):
    """Run the analysis over an :class:`Index`; results in :attr:`hits` (site -> path from an entry),
    :attr:`paths` (site key -> the shortest few paths, shortest first), :attr:`entries` (site key -> entry qualnames),
    :attr:`offloaded`, :attr:`complete`."""

    index: Index
    hits: dict[tuple, tuple[Site, tuple[Step, ...]]] = field(default_factory=dict)
    paths: dict[tuple, list[tuple[Step, ...]]] = field(default_factory=dict)  # the shortest few per site (_keep)
    entries: dict[tuple, list[str]] = field(default_factory=dict)
    entry_calls: dict[tuple, list[tuple[str, int, str]]] = field(default_factory=dict)  # callers.note_entry
    offloaded: list[Offload] = field(default_factory=list)
    callbacks: list[Func] = field(default_factory=list)
    complete: bool = True
    operations: int = 0
    budget: int = MAX_OPERATIONS
    _memo: dict[tuple[int, bool], list[tuple[Site, tuple[Step, ...]]]] = field(default_factory=dict)
    _busy: set[tuple[int, bool]] = field(default_factory=set)
    _offload_seen: set[tuple] = field(default_factory=set)
    _calls_memo: dict[int, list[tuple[ast.Call, bool]]] = field(default_factory=dict)
    _awaited_memo: dict[int, set[int]] = field(default_factory=dict)
    _iterated_memo: dict[int, set[int]] = field(default_factory=dict)
    _guarded: set[int] = field(default_factory=set)

    def run(self) -> None:
        funcs = [f for m in self.index.distinct_modules() for f in m.all_functions]
        entries = sorted((f for f in funcs if loop_entry(self.index, f)), key=lambda f: not f.is_async)  # async first
        factories = factory_names(funcs)
        try:
            for func in funcs:  # sync functions handed to the loop as callbacks (call_soon, add_done_callback...)
                for call, _ in self._calls(func):  # or to a factory whose async closure calls them (async_closures)
                    target = loop_callback(self.index, call, func)
                    targets = [target] if target is not None else (  # a palette's command tuples (palette_tuples)
                        unpacked_commands(self.index, call, func) or closure_runs(self.index, call, func, factories))
                    for target in targets:
                        if isinstance(target, Func) and not target.is_async and target not in self.callbacks:
                            self.callbacks.append(target)
            for entry in [*entries, *self.callbacks]:
                for site, path in self._reach(entry, direct=True, receiver=entry.cls):
                    key = site.key
                    if key not in self.hits or len(path) < len(self.hits[key][1]):  # the shortest path kept
                        self.hits[key] = (site, path)
                    self._keep(key, path)
                    note_entry(self.entries, self.entry_calls, key, entry, path)
        except Budget:
            self.complete = False

    def _keep(self, key: tuple, path: tuple[Step, ...]) -> None:
        """Keep ``path`` among the :data:`MAX_PATHS` shortest distinct paths to the site ``key``."""
        kept = self.paths.setdefault(key, [])
        if len(kept) >= MAX_PATHS and len(path) >= len(kept[-1]):
            return
        steps = tuple((id(f), line) for f, line in path)
        if any(tuple((id(f), line) for f, line in other) == steps for other in kept):
            return
        kept.append(path)
        kept.sort(key=len)
        del kept[MAX_PATHS:]

    # -- walking one function ------------------------------------------------------------------------
    def _reach(self, func: Func, *, direct: bool = False, under: bool = False,
               receiver: Klass | None = None) -> list[tuple[Site, tuple[Step, ...]]]:
        """Blocking sites reached by running ``func``'s body, each with its path (``func`` first); ``under``: the call
        into ``func`` was made inside ``torch.no_grad()``/``inference_mode()``; ``receiver``: the class the call path
        knows ``self`` to be (or a subclass): ``self.m()`` inside runs that class's ``m`` (``dispatch.dispatched``)."""
        receiver = receiver if func.cls is not None else None
        key = (id(func), under, id(receiver) if receiver is not None else 0)
        if not direct and key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return []  # recursion: already being walked higher up
        self._busy.add(key)
        found: list[tuple[Site, tuple[Step, ...]]] = []
        try:
            for call, inference in self._calls(func):
                site = self._blocking(call, func, inference)
                targets = on_loop(self.index, self._followed(call, func, receiver)) if site is None else []
                if site is None and under and not inference and not targets:
                    site = self._wrapped_model(call, func)
                if site is not None:
                    found.append((site, ((func, call.lineno),)))
                    targets = flush_listeners(self.index) if flushes(site, call) else []  # ORM listeners run inside
                elif (bound := subclass_bound_site(self.index, call, func)) is not None:  # self.set = self.db.set
                    found.append((bound, ((func, call.lineno),)))  # in a subclass; its siblings' overrides too
                for target in targets:
                    for inner, path in self._reach(target, under=inference or under,
                                                   receiver=receiver_in(self.index, call, func, target, receiver)):
                        if len(path) < MAX_CHAIN:
                            found.append((inner, ((func, call.lineno), *path)))
                        else:  # not followed further: never a silent "ok"
                            self.complete = False
            for node, getter, owner in property_reads(self.index, func):  # self.data: the getter runs on the spot
                for inner, path in self._reach(getter, under=under, receiver=owner):
                    if len(path) < MAX_CHAIN:
                        found.append((inner, ((func, node.lineno), *path)))
                    else:
                        self.complete = False
            streams = [Site(opened.kind, f"{opened.what} (stream=True, iterated on the loop)", func, loop)
                       for loop, opened in consumed_streams(func, self.index, self._blocking)]  # opened off the loop
            for site in [*streams, *waiting_iterations(func, self.index),  # for text in streamer: each next() waits
                         *blocking_reads(func, self.index),  # result.state: the property asks the backend
                         *contended_locks(self, func)]:  # with lock: another holder blocks under it (held_locks)
                found.append((site, ((func, site.node.lineno),)))
        finally:
            self._busy.discard(key)
        if not direct:
            self._memo[key] = found
        return found

    def _followed(self, call: ast.Call, func: Func, receiver: Klass | None = None) -> list[Func]:
        """The sync functions of the analysed files that ``call`` runs on the spot (``receiver``: :meth:`_reach`)."""
        index = self.index
        target = index.callee(call.func, func)
        if not isinstance(target, (Func, Klass)) and (hooks := fallback_hooks(index, call, func)):
            return hooks  # await MyRetriever().aretrieve(q): LlamaIndex's base runs the class's sync _retrieve
        if not isinstance(target, (Func, Klass)) and (setups := extension_setups(index, call, func)):
            return setups  # bot.load_extension("cogs.x"): the extension's setup(bot) runs here
        if not isinstance(target, (Func, Klass)) and (rendered := template_functions(index, call, func)):
            return rendered  # self.render("index.html", url_of=url_of): the template calls url_of as it renders
        if isinstance(target, Func):
            if is_generator(target) and id(call) not in self._iterated(func):
                return []  # gen(): only makes the generator; its body runs where it is iterated
            target = dispatched(self.index, call, func, target, receiver)
            # A or B; a generator it returns, iterated here; a function it is handed here and calls (passed.py)
            found = [t for t in factory_choices(index, call, func, target) if not t.is_async] + handed_back(
                index, target, id(call) in self._iterated(func)) + called_here(index, call, func, target)
            if target.cls is not None and isinstance(call.func, ast.Attribute):  # cache: A | B; cache.get(k)
                found += [m for k in union_members(index, call.func.value, func)
                          for m in [index.method(k, call.func.attr)]
                          if m is not None and not m.is_async and m is not target and m not in found]
            if (receiver is not None and target.cls is not None and on_self(call.func, func)
                    and not is_abstract(target)):  # self.forward(): `self` may be any subclass of the receiver
                name = target.node.name
                found += [sub.methods[name] for sub in index.subclasses(receiver) if name in sub.methods
                          and not sub.methods[name].is_async and sub.methods[name] is not target]
            if target.cls is not None and is_abstract(target) and not is_super_call(call.func):
                known = receiver if on_self(call.func, func) and receiver is not None else None
                overrides = built_overrides(index, [  # a class nothing builds runs none (unbuilt_classes.py)
                    sub.methods[target.node.name] for sub in index.subclasses(known or target.cls)
                    if target.node.name in sub.methods and not sub.methods[target.node.name].is_async])
                if not on_self(call.func, func) or func.is_async or len(overrides) == 1 or known is not None:
                    # `self.load()` in a base's sync helper reached without a known `self` class: left; an
                    # async method is an entry the framework may call on an instance of any subclass; a
                    # receiver known on the call path (`self` is an S, or a subclass of S): S's subclasses
                    found += overrides
                if on_self(call.func, func) and not overrides:  # a mixin's protocol stub: a sibling implements it
                    found += sibling_implementations(index, target, known)
            return found + decorator_wrappers(index, target)  # and the wrapper of a decorator of the files
        if isinstance(target, Klass):
            chosen = aliases(func).get(call.func.id) if isinstance(call.func, ast.Name) else None
            classes = [index.callee(side, func) for side in (chosen.body, chosen.orelse)] if isinstance(
                chosen, ast.IfExp) else [target]  # Loader = A if x else B; Loader(...): either constructor runs
            return [m for k in classes if isinstance(k, Klass) for m in constructor_functions(index, k, call)]
        if target is None and not isinstance(call.func, ast.Lambda):
            built = returned_class_constructors(index, call.func, func)
            if built:  # pick(name)(options): the constructor of the class `-> Type[Base]` hands back
                return built
            named = named_methods(index, call.func, func)
            if named:  # getattr(self, f"command_{word}")(arg): any command_ method
                return named
            instance = index.type_of(call.func, func)
            if isinstance(instance, Klass):
                method = index.method(instance, "__call__")  # with a generator it returns, iterated here
                return handed_back(index, method, id(call) in self._iterated(func), itself=True)
            choices = self._choices(call.func, func)
            if choices:  # loaders[name](x): any function of the literal dict may be the one picked
                return choices
            made = self._made(call.func, func)
            if made:  # run = make_runner(path); run(x): the closure the factory returned
                return made
            registry = registry_of(call.func, func)
            if registry is not None:  # handler = self.handlers[kind]; handler(ctx): whatever @x.register stored
                owner = index.type_of(registry.value, func)
                if isinstance(owner, Klass):
                    return [f for f in index.infer.registered(owner, registry.attr) if not f.is_async]
            imported = imported_tools(index, call.func, func)
            if imported:  # fn = registry.get(name); fn(**args): a tool the package's __init__ looked up by name
                return imported
            if isinstance(call.func, ast.Attribute):  # model: Union[A, B]; model.generate(): A's or B's
                members = union_members(index, call.func.value, func)
                if members:
                    return [m for k in members for m in [index.method(k, call.func.attr)]
                            if m is not None and not m.is_async]
                picked = picked_methods(index, call, func)
                if picked:  # SERIALIZERS[kind].load(body): the load of whichever class the table hands out
                    return picked
            if isinstance(call.func, ast.Attribute):  # self.handler(ctx): a function stored in an attribute
                owner = index.type_of(call.func.value, func)
                if isinstance(owner, Klass):
                    stored = [f for f in index.infer.attribute_callees(owner, call.func.attr)
                              if isinstance(f, Func) and not f.is_async]
                    if stored or index.method(owner, call.func.attr) is not None:
                        return stored
                    # a base that leaves the method to its subclasses (a factory `__new__` picking one by name)
                    return [sub.methods[call.func.attr] for sub in index.subclasses(owner)
                            if call.func.attr in sub.methods and not sub.methods[call.func.attr].is_async]
        return offloaded_generators(index, call, func)  # for row in await to_thread(gen): gen's body runs here

    def _blocking(self, call: ast.Call, func: Func, inference: bool) -> Site | None:
        index = self.index
        if id(call) in self._guarded:
            return None
        if id(call) in self._awaited(func) and not awaited_sync_call(index, call, func):
            # `await x.execute(...)`: an async client's coroutine, whatever its name resembles, unless LlamaIndex's
            # runs the store's sync query
            return store_fallback(index, call, func)
        target = index.callee(call.func, func)
        if isinstance(target, str):
            if target in STREAMED_ITERATORS and id(call) not in self._iterated(func):
                return None  # StreamingResponse(resp.iter_content()): the generator is read where it is iterated
            site = named_site(index, target, call, func)
            if site is None and isinstance(call.func, ast.Attribute):
                site = any_of_site(index, call, func)
            if site is None and index.installed is not None:  # an installed library's function: its source says
                site = index.installed.site(index, target, call, func)
                if site is not None and site.library.lazy and id(call) not in self._iterated(func):
                    return None  # a library generator made here and iterated elsewhere (in a thread, a callee)
            return site if site is not None else inferred.site(index, target, call, func)  # a client by evidence
        if isinstance(target, Func) and not target.is_async and (
                not is_generator(target) or id(call) in self._iterated(func)):
            parsed = line_parser(index, target)  # parse_log(blob): strptime on every line of the whole text
            if parsed is not None:
                return Site("blocking_cpu", parsed, func, call)
        if isinstance(target, (Func, Klass)):
            # a method of a described library's own class (a class called here is constructed: not its __call__)
            return described_call(index, call, func, target) if isinstance(target, Func) else None
        site = self._typed(call, func, inference, target)
        if site is None and target is None:
            site = any_of_site(index, call, func)
        if site is None and target is None and (named := parameter_target(index, call, func)) is not None:
            site = named_site(index, named, call, func)  # page.get_text() where every caller passes a fitz Page
        if site is None and target is None and index.installed is not None:  # class A(library.Base): self.m()
            site = index.installed.inherited_site(index, call, func)
        return site if site is not None or target is not None else inferred.site(index, None, call, func)

    def _typed(self, call: ast.Call, func: Func, inference: bool, target) -> Site | None:
        index = self.index
        instance = called_instance(index, call, func)  # a subclass of a pipeline that keeps its __call__: the base
        if class_parameter(call.func, func):
            return None  # linear_cls(d, d): a class passed in (default `Linear`) is constructed, not run
        if isinstance(instance, str) and vocab.is_torch_module(instance):
            return Site("blocking_cpu", f"{instance} forward", func, call)
        if isinstance(instance, str):
            family = index.vocab.family_kind(instance, "__call__")
            if family is not None and argument_blocks(index, f"{instance}.__call__", call, func):
                return Site(family[0], f"{instance}.__call__", func, call)  # a `when` of the call: its arguments
            if family is None and run_site(index, instance, "__call__"):  # model = YOLO("best.pt"); model(image)
                return Site("blocking_cpu", f"{instance}.__call__ (a model class: the code builds it from a model "
                                            "reference)", func, call)
        if isinstance(instance, Klass):
            if index.method(instance, "__call__") is None and index.subclass_of(instance, vocab.is_torch_module):
                return Site("blocking_cpu", f"{instance.qualname} forward (a torch.nn.Module)", func, call)
            return described_call(index, call, func, instance)  # a described library's own class, called
        shape = _openai_shape(call.func, func, index)
        if shape is not None:
            return Site("blocking_http", shape, func, call)
        if isinstance(call.func, ast.Attribute):
            owner = index.type_of(call.func.value, func)
            method = call.func.attr
            if isinstance(owner, Klass):
                if method in vocab.TORCH_MODULE_METHODS and index.subclass_of(owner, vocab.is_torch_module):
                    return Site("blocking_cpu", f"{owner.qualname}.{method}", func, call)
                if method in vocab.ESTIMATOR_METHODS and index.subclass_of(owner, vocab.is_estimator):
                    return Site("blocking_cpu", f"{owner.qualname}.{method}", func, call)
                inherited = self._inherited(owner, method)  # class Store(redis.Redis): store.get(...)
                if inherited is not None and not (inherited[0] == "blocking_task" and is_poll(call)):
                    return Site(inherited[0], f"{owner.qualname}.{method} (from {inherited[1]})", func, call)
            if method in vocab.METHOD_NAMES and (owner is None or lacks(index, owner, method)):
                return Site(vocab.METHOD_NAMES[method], f".{method}()", func, call)
        if inference and target is None and (may_be_forward(dotted(call.func)) or model_verb_on_parameter(
                call.func, func)) and not self._inherited_call(call, func) and not calls_hook(call, func):
            shown = ".".join(dotted(call.func))
            return Site("blocking_cpu", f"{shown}(...) under torch.no_grad()/inference_mode()", func, call)
        return None

    def _made(self, expr: ast.expr, func: Func) -> list[Func]:
        """The sync closures a factory returned into the local ``expr`` (assigned once) and ``expr(...)`` runs."""
        if not isinstance(expr, ast.Name):
            return []
        bound = [n.value for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == expr.id]
        if len(bound) != 1:
            return []
        return [f for f in self.index.infer.made_functions(bound[0], func) if not f.is_async]

    def _choices(self, expr: ast.expr, func: Func) -> list[Func]:
        """The sync functions (or chosen classes' constructors) of a literal dict a call picks from (see
        :func:`~faultlib.detect.serving.blocking.choices.picked`)."""
        found: list[Func] = []
        for target in picked(self.index, expr, func):
            inits = [self.index.method(target, m) for m in ("__init__", "__new__")] if isinstance(target, Klass) else [
                target]  # {"fast": FastModel, ...}[name](...): the chosen class's constructor
            found.extend(t for t in inits if isinstance(t, Func) and not t.is_async and t not in found)
        return found

    def _wrapped_model(self, call: ast.Call, func: Func) -> Site | None:
        """In a method run from inside ``torch.no_grad()`` elsewhere (a model wrapper's ``encode_image``): the
        wrapped model's work, ``self.model.encode_image(x)`` or ``self.model(x)`` on an attribute the class sets."""
        if self.index.callee(call.func, func) is not None or func.cls is None:
            return None
        parts = dotted(call.func)
        if not parts or parts[0] != "self" or len(parts) not in (2, 3) or any("token" in p.lower() for p in parts):
            return None
        if len(parts) == 3 and parts[2] not in MODEL_VERBS:
            return None
        if not stores(func.cls, parts[1]) or (len(parts) == 2 and not may_be_forward(parts)):
            return None
        if calls_hook(call, func):  # on_text: Callable[[Tensor], None] (hook_params.py)
            return None
        return Site("blocking_cpu", f"{'.'.join(parts)}(...) run under torch.no_grad()/inference_mode() by its caller",
                    func, call)

    def _inherited_call(self, call: ast.Call, func: Func) -> bool:
        """``self.monitor(...)`` in a class with a third-party base and no ``self.monitor = ...`` anywhere in its
        analysed classes: a method inherited from that base (a framework's helper), not a stored model."""
        parts = dotted(call.func)
        klass = func.cls
        if klass is None or parts is None or len(parts) != 2 or parts[0] != "self":
            return False
        chain, todo = [], [klass]
        while todo and len(chain) < 16:
            k = todo.pop()
            chain.append(k)
            todo.extend(b for b in self.index.bases(k) if isinstance(b, Klass) and b not in chain)
        third_party = any(isinstance(b, str) for k in chain for b in self.index.bases(k))
        return third_party and not any(stores(k, parts[1]) for k in [*chain, *self.index.subclasses(klass)])

    def _inherited(self, klass: Klass, method: str, depth: int = 0) -> tuple[str, str] | None:
        """``(kind, base)`` when ``method``, not defined in the analysed files, comes from a third-party base of
        ``klass`` whose family blocks on it (a LangChain ``Runnable``'s ``batch``, a redis client's ``get``) or whose
        method the vocabulary lists by its exact name (``class PortalClient(httpx.Client)``: ``post`` is
        ``httpx.Client.post``; held-out wave 82: a project client subclass handed out by a ``@contextmanager``)."""
        if depth > 8 or self.index.method(klass, method) is not None:
            return None
        for base in self.index.bases(klass):
            if isinstance(base, str):
                found = self.index.vocab.family_kind(base, method) or self.index.vocab.calls.get(f"{base}.{method}")
                if found is not None:
                    return found[0], base
            elif isinstance(base, Klass):
                found = self._inherited(base, method, depth + 1)
                if found is not None:
                    return found
        return None


def _openai_shape(expr: ast.expr, func: Func, index: Index) -> str | None:
    """``client.chat.completions.create(...)`` (or another path of the OpenAI API's shape) on an instance of a
    third-party client class that is not an async twin: the OpenAI-compatible sync SDKs (ZhipuAI, Ark, ...)."""
    path: list[str] = []
    bases: list[ast.expr] = []
    while isinstance(expr, ast.Attribute) and len(path) < 3:
        path.insert(0, expr.attr)
        expr = expr.value
        bases.append(expr)
    for size in (3, 2):  # the longest shape first: chat.completions.create before completions.create
        if len(path) >= size and tuple(path[-size:]) in vocab.OPENAI_SHAPES:
            path, expr = path[-size:], bases[size - 1]
            break
    else:
        return None
    root = index.type_of(expr, func)
    if not (isinstance(root, str) and vocab.is_third_party_instance(root)) or any(
            p.startswith(("Async", "aio")) for p in [*root.split("."), *path]):
        return None
    return f"{root}.{'.'.join(path)}"
