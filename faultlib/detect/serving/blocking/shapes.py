"""Shapes of calls and functions that decide how ``check blocking`` follows a call (used by
:mod:`faultlib.detect.serving.blocking.reach`): generators and what iterates them, abstract methods and ``self``
receivers, registry decorators, polls of a queue, what may be a model's forward under ``torch.no_grad()``."""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.loop_streams import opened_on_loop
from faultlib.detect.serving.blocking.model import Func, Klass, dotted, nodes_of

CONSUMERS = frozenset({"list", "tuple", "set", "dict", "frozenset", "sorted", "sum", "min", "max", "any", "all",
                        "next", "enumerate", "zip", "map", "filter", "reversed"})


def registry_of(expr: ast.expr, func: Func) -> ast.Attribute | None:
    """The ``x.handlers`` of ``x.handlers[key](...)``, ``x.handlers.get(key)(...)``, or of a local assigned once from
    one of those and then called."""
    if isinstance(expr, ast.Name):
        bound = [n.value for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == expr.id]
        expr = bound[0] if len(bound) == 1 else expr
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get":
        expr = ast.Subscript(value=expr.func.value, slice=expr.args[0] if expr.args else ast.Constant(None))
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute):
        return expr.value
    return None


def taken(node: ast.If, children: list[ast.AST]) -> list[ast.AST]:
    """``children`` of ``node`` less the statements that never run because its test is a literal: the body of
    ``if False:`` / ``if 0:`` / ``if None:`` (debug code switched off by hand), the ``else`` of ``if True:``.
    Python itself drops those branches when it compiles them (a constant test picks the same branch every time:
    https://docs.python.org/3/reference/compound_stmts.html#the-if-statement)."""
    test = node.test
    if not isinstance(test, ast.Constant) or isinstance(test.value, str | bytes):
        return children
    dead = node.orelse if test.value else node.body
    return [c for c in children if not any(c is d for d in dead)]


def stores(klass: Klass, attr: str) -> bool:
    """Whether ``klass`` sets ``attr``: at class level or as ``self.attr = ...`` in one of its methods."""
    names = klass.__dict__.get("_faultlib_stored")
    if names is None:
        names = {t.id for stmt in klass.node.body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
                 for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]) if isinstance(t, ast.Name)}
        names |= {n.attr for method in klass.methods.values() for n in nodes_of(method, ast.Attribute)
                  if isinstance(n.ctx, ast.Store)}
        names |= {k.arg for method in klass.methods.values() for n in nodes_of(method, ast.Call)  # register_modules
                  if sets_attributes(n, None) for k in n.keywords if k.arg}
        klass.__dict__["_faultlib_stored"] = names
    return attr in names


def sets_attributes(node: ast.AST, self_name: str | None) -> bool:
    """``self.<setter>(name=value, ...)`` with a setter of :data:`vocab.ATTRIBUTE_SETTERS` (diffusers'
    ``register_modules``); ``self_name`` None: any receiver named ``self``."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in
            vocab.ATTRIBUTE_SETTERS and isinstance(node.func.value, ast.Name) and node.func.value.id == (
                self_name or "self"))


MAX_IMPLEMENTATIONS = 8  # classes taken as a typing.Protocol's implementations (structural match)


def protocol_implementations(index, classes: list[Klass]) -> list[tuple[Klass, list[Klass]]]:
    """``(protocol, implementations)`` for each ``typing.Protocol`` of ``classes``: the classes that have all of its
    public methods, defined or inherited from a base of the analysed files (a metrics mixin), subclass or not (PEP
    544 structural subtyping), unless more than :data:`MAX_IMPLEMENTATIONS` do (a name too common to say which
    classes implement it)."""
    out = []
    for protocol in classes:
        wanted = {n for n in protocol.methods if not n.startswith("_")}
        if not wanted or not any(isinstance(b, str) and b.rpartition(".")[2] == "Protocol"
                                 for b in index.bases(protocol)):
            continue
        found = [k for k in classes if k is not protocol
                 and all(n in k.methods or index.method(k, n) is not None for n in wanted)]
        if len(found) <= MAX_IMPLEMENTATIONS:
            out.append((protocol, found))
    return out


def is_generator(func: Func) -> bool:
    return not func.is_async and bool(nodes_of(func, (ast.Yield, ast.YieldFrom)))


def is_property(func: Func) -> bool:
    """A ``@property`` (or ``functools.cached_property``) getter: reading the attribute runs it."""
    return any((dotted(d) or [""])[-1] in ("property", "cached_property") for d in func.node.decorator_list)


def is_abstract(func: Func) -> bool:
    """Whether a method only declares an interface: ``@abstractmethod``, or a body of a docstring, ``pass``,
    ``...`` or ``raise NotImplementedError``."""
    if any((dotted(d) or [""])[-1] in ("abstractmethod", "abstractproperty") for d in func.node.decorator_list):
        return True
    for stmt in func.node.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.Raise) and "NotImplementedError" in ast.dump(stmt):
            continue
        return False
    return True


def on_self(expr: ast.expr, func: Func) -> bool:
    """``self.method``: the receiver is the calling method's own instance."""
    params = func.node.args.args
    return (func.cls is not None and bool(params) and isinstance(expr, ast.Attribute)
            and isinstance(expr.value, ast.Name) and expr.value.id == params[0].arg)


def is_super_call(expr: ast.expr) -> bool:
    """``super().method``: the base's own body runs, not the overrides."""
    return (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Call)
            and isinstance(expr.value.func, ast.Name) and expr.value.func.id == "super")


def is_poll(call: ast.Call) -> bool:
    """``q.get(False)``, ``q.get(block=False)``, ``q.get(timeout=0)``, ``event.wait(0)``, ``lock.acquire(blocking=False)``
    (https://docs.python.org/3/library/threading.html#threading.Lock.acquire): a poll, not a wait."""
    def falsy(node: ast.expr | None) -> bool:
        return isinstance(node, ast.Constant) and node.value in (False, 0)
    return (falsy(call.args[0]) if call.args else False) or any(
        k.arg in ("block", "blocking", "timeout") and falsy(k.value) for k in call.keywords)


MODEL_VERBS = frozenset({"encode", "decode", "generate", "infer", "inference", "predict", "embed", "encode_image",
                         "encode_text", "transcribe"})
"""What a model passed in as a parameter is asked to do under ``torch.no_grad()`` (``model.encode(audio)``)."""


def model_verb_on_parameter(expr: ast.expr, func: Func) -> bool:
    """``model.decode(z)`` inside ``torch.no_grad()``/``inference_mode()`` with ``model`` a parameter of the
    function (untyped: the caller's model): a model's work, not a tokenizer's or a logger's."""
    if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.attr in MODEL_VERBS):
        return False
    name = expr.value.id
    params = [a.arg for a in (*func.node.args.posonlyargs, *func.node.args.args, *func.node.args.kwonlyargs)]
    return name in params[1 if func.cls is not None else 0:] and not any(w in name.lower() for w in (
        "token", "log", "codec", "json", "processor"))


NOT_FORWARD = frozenset({
    "load_state_dict", "state_dict", "parameters", "named_parameters", "buffers", "named_buffers", "modules",
    "register_buffer", "register_parameter", "apply", "zero_grad", "keys", "items", "values", "get", "append",
    "extend", "update", "pop", "format", "join", "split", "strip", "size", "dim", "item", "tolist", "numpy",
    "detach", "clone", "contiguous", "view", "reshape", "unsqueeze", "squeeze", "permute", "transpose",
    "set", "add", "copy", "debug", "info", "warning", "warn", "error", "exception", "critical", "log",
    "isinstance", "len", "range", "print", "enumerate", "zip", "min", "max", "sum"}) | vocab.SAME_TYPE_METHODS
"""Calls inside ``torch.no_grad()`` that are never a model's forward: module bookkeeping, tensor views, containers,
logging."""


def class_parameter(expr: ast.expr, func: Func) -> bool:
    """``expr`` names a parameter that holds a class: its default is a class (``layer_cls=Linear``) or its name
    says so (``norm_cls``, ``model_class``)."""
    if not isinstance(expr, ast.Name):
        return False
    args = func.node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    if expr.id not in {a.arg for a in [*positional, *args.kwonlyargs]}:
        return False
    default = dotted(defaults[expr.id]) if expr.id in defaults else None
    return expr.id.endswith(("_cls", "_class", "_type")) or bool(default and default[-1][:1].isupper())


def may_be_forward(parts: list[str] | None) -> bool:
    """A call of unknown target inside ``torch.no_grad()``/``inference_mode()`` that may run a model: a value called
    directly (``model(x)``, ``self.encoder(x)``), not a method of some object (``t.narrow()``, ``finish.any()``),
    bookkeeping (``self.logger.info``, ``self.eval()``) or a class (``self.Outputs(...)``)."""
    if not parts or parts[-1] in NOT_FORWARD or parts[-1].startswith("_") or parts[-1][:1].isupper():
        return False
    if len(parts) > 2 or (len(parts) == 2 and parts[0] != "self"):
        return False  # a method of some object (t.narrow, finish.any): a tensor op, not a module's forward
    return not any("log" in p.lower() or "token" in p.lower() for p in parts)  # logging; a tokenizer's call


def flushes(site, call: ast.Call) -> bool:
    """``session.commit()``/``flush()`` on a sync SQLAlchemy session: the ORM's flush-time listeners run inside it."""
    return (site.kind == "blocking_db" and isinstance(call.func, ast.Attribute) and call.func.attr in
            vocab.FLUSHING_METHODS and site.what.startswith(("sqlalchemy.", "sqlmodel.")))


def flush_listeners(index) -> list[Func]:
    """The sync functions of the analysed files registered with ``@event.listens_for(target, "<flush event>")``
    (:data:`vocab.FLUSH_EVENTS`): SQLAlchemy calls them from inside the flush of a commit."""
    found = index.__dict__.get("_faultlib_flush_listeners")
    if found is None:
        found = []
        for module in index.distinct_modules():
            for func in module.all_functions:
                for decorator in func.node.decorator_list:
                    if (not func.is_async and isinstance(decorator, ast.Call) and len(decorator.args) >= 2
                            and (dotted(decorator.func) or [""])[-1] == "listens_for"
                            and isinstance(decorator.args[1], ast.Constant)
                            and decorator.args[1].value in vocab.FLUSH_EVENTS):
                        found.append(func)
                        break
        index.__dict__["_faultlib_flush_listeners"] = found
    return found


def _is_stream(call: ast.Call) -> bool:
    return any(k.arg == "stream" and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


def _stream_opened(offload: ast.Call, func: Func, index) -> tuple[ast.Call, Func] | None:
    """The call behind ``await asyncio.to_thread(...)``/``loop.run_in_executor(...)`` that opens a stream
    (``stream=True``): passed through (``to_thread(client.create, ..., stream=True)``), a lambda's body, or what a
    local function returns. ``(call, the function it is in)``, or None."""
    target = index.callee(offload.func, func)
    if isinstance(target, str) and target in vocab.OFFLOAD:
        position = vocab.OFFLOAD[target]
    elif isinstance(offload.func, ast.Attribute) and offload.func.attr == "run_in_executor":
        position = 1
    else:
        return None
    if len(offload.args) <= position:
        return None
    fn = offload.args[position]
    if _is_stream(offload):
        return ast.copy_location(ast.Call(func=fn, args=offload.args[position + 1:], keywords=offload.keywords),
                                 offload), func
    if isinstance(fn, ast.Lambda) and isinstance(fn.body, ast.Call) and _is_stream(fn.body):
        return fn.body, func
    opener = index.callee(fn, func)
    if isinstance(opener, Func) and not opener.is_async:
        for node in opener.nodes:
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and _is_stream(node.value):
                return node.value, opener
    return None


def consumed_streams(func: Func, index, blocking) -> list[tuple[ast.For, object]]:
    """``for chunk in stream`` on the loop where ``stream = await <offload>(...)`` opened a sync stream in a worker
    thread (a llama.cpp or OpenAI ``stream=True`` call): each chunk is computed or read by the iteration, on the loop;
    also a stream opened on the loop itself (:func:`~faultlib.detect.serving.blocking.loop_streams.opened_on_loop`).
    ``(the for, the blocking site of the opening call)`` via ``blocking(call, func, False)``."""
    opened = {n.targets[0].id: n.value.value for n in nodes_of(func, ast.Assign)
              if len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
              and isinstance(n.value, ast.Await) and isinstance(n.value.value, ast.Call)}
    found = []
    for node in nodes_of(func, ast.For) if opened else ():
        if isinstance(node.iter, ast.Name) and node.iter.id in opened:
            inner = _stream_opened(opened[node.iter.id], func, index)
            site = blocking(*inner, False) if inner is not None else None
            if site is not None:
                found.append((node, site))
    return found + opened_on_loop(func, blocking)  # stream = client.create(stream=True) on the loop, then iterated
