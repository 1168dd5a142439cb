"""Resume completeness, statically: which training state a script's checkpoints save and its resume restores.

A resumed run is the same run only if every stateful object the loop uses comes back: the model, each
optimizer (moments, step counts), each LR scheduler (``last_epoch``: without it the learning rate
restarts its warm-up), the GradScaler (without it the loss scale restarts at 65536 and the first
steps are skipped), EMA weights, ``torch.Generator`` objects and the global RNGs (data order,
dropout masks, augmentation), and the epoch/step counters (which also drive ``sampler.set_epoch``).

The analysis (:func:`analyze_resume_source`) parses the script with :mod:`ast` (never imports or runs it);
what it recognises is :mod:`~faultlib.detect.training.vocab`, what a checkpoint file holds
:mod:`~faultlib.detect.training.checkpoint_state`:

1. **objects** the loop uses: created by a call the vocabulary recognises (``torch.optim.*``,
   ``lr_scheduler.*``/``get_*_schedule*``, ``GradScaler``, EMA classes, ``torch.Generator``; the model
   is what an optimizer's ``X.parameters()`` names), and stepped inside a ``for``/``while`` loop;
   global RNGs when the script draws from them (shuffling loaders, ``torch.rand*``, ``np.random.*``,
   ``random.*``) and seeds them; counters from ``for epoch in range(...)`` loops around an optimizer step
   and ``global_step += 1``;
2. **saved**: what the first argument of ``torch.save`` / ``save_file`` / ``fabric.save`` /
   ``dcp.save`` carries, by value flow on the shared interpreter (:mod:`~faultlib.detect.training.flow`:
   through variables, containers, instances, returns and parameters); ``accelerator.save_state``
   saves everything given to ``accelerator.prepare`` or ``register_for_checkpointing`` and the RNGs;
3. **restored**: ``X.load_state_dict(...)``, ``X = torch.load(...)``, ``torch.set_rng_state`` and its
   numpy/python/cuda/Generator twins, ``accelerator.load_state``; a counter is restored when its
   loop starts from a value that is not a constant;
4. **order**: an object restored and then created again in the same function, or a scheduler created
   after its optimizer's state was loaded and not restored after its creation (it starts its schedule
   over on the resumed optimizer).

Lightning (``Trainer.fit``) and Hugging Face ``Trainer.train`` save and restore their state
implicitly: the report says so and raises nothing about the objects they own.

Limits: objects are named by the last identifier they are assigned to (``self.sched`` and ``sched`` are one
object); a checkpoint helper defined in another file is known by its name only (``SAVE_HELPERS``,
``LOAD_HELPERS`` in :mod:`~faultlib.detect.training.vocab`); state saved through a library this vocabulary
does not know (DeepSpeed's ``save_checkpoint``) is not seen as saved.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.training.flow import StateFlow
from faultlib.detect.training.source import Index, Scope, enclosing_loops, tail
from faultlib.detect.training.state import ResumeReport, StateObject
from faultlib.detect.training.verdicts import judge
from faultlib.detect.training.vocab import (
    COUNTER, DETECTOR, EMAS, GENERATORS, LOAD_CALLS, LOAD_HELPERS, OPTIMIZERS, RNG_DRAWS, RNG_SET, SAVE_CALLS,
    SAVE_HELPERS, SCALERS, SCHEDULERS, SEEDS, STEPPED)
from faultlib.readers.pysource import parse_python


def _classify(index: Index, call: ast.Call) -> str | None:
    while isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):  # Generator().manual_seed(0)
        call = call.func.value
    name = index.dotted(call.func) or (tail(call.func) or "")
    last = name.rsplit(".", 1)[-1]
    if last in SCALERS:
        return "grad_scaler"
    if name in GENERATORS or last == "Generator":
        return "generator"
    if "lr_scheduler" in name or SCHEDULERS.match(last):
        return "scheduler"
    if name.startswith("torch.optim.") or OPTIMIZERS.match(last):
        return "optimizer"
    if EMAS.match(last):
        return "ema"
    return None


class _Analysis:
    def __init__(self, source: str, path: str):
        self.path = path
        self.tree = parse_python(source, path)
        self.index = Index(self.tree)
        self.flow = StateFlow(self.tree)
        self.loops = enclosing_loops(self.tree)
        self.objects: dict[str, StateObject] = {}
        self.creations: dict[str, list[tuple[int, Scope]]] = {}
        self.report = ResumeReport(path)
        self.unreached: list[ast.AST] = []
        self.resume_flag = False  # some state is restored under `if args.resume:`: the script says it resumes

    def where(self, line: int, scope: Scope) -> dict[str, Any]:
        return {"file": self.path, "line": line, "function": scope.name}

    def add(self, name: str, kind: str, line: int, scope: Scope) -> StateObject:
        obj = self.objects.get(name)
        if obj is None:
            obj = self.objects[name] = StateObject(name, kind, line, scope.name)
        return obj

    # -- 1. objects ----------------------------------------------------------------------------------
    def find_objects(self) -> None:
        idx = self.index
        used: set[str] = set()
        looped = self._looped_functions()
        for call, scope in idx.calls:
            in_loop = bool(self.loops.get(id(call))) or scope.name in looped
            if isinstance(call.func, ast.Attribute) and call.func.attr in STEPPED and in_loop:
                if (name := tail(call.func.value)):
                    used.add(name)
            if in_loop and not idx.by_short.get(tail(call.func) or ""):  # train_one_epoch(model, optimizer, ...)
                used |= {t for a in (*call.args, *(k.value for k in call.keywords)) if (t := tail(a))}
        for scope in idx.scopes.values():
            for name, values in scope.assigns.items():
                for line, value in values:
                    if isinstance(value, ast.Call) and (kind := _classify(idx, value)):
                        self.creations.setdefault(name, []).append((line, scope))
                        obj = self.add(name, kind, line, scope)
                        if kind == "optimizer":
                            params = [*value.args[:1], *(k.value for k in value.keywords if k.arg == "params")]
                            if params:
                                self._model_of(params[0], line, scope)
                            elif isinstance(value.func, ast.Attribute) and (owner := tail(value.func.value)):
                                if owner not in self.objects:  # model.configure_optimizers(...) (nanoGPT)
                                    self.add(owner, "model", line, scope)
        for name in list(self.objects):
            obj = self.objects[name]
            if obj.kind not in ("model", "generator") and name not in used:
                del self.objects[name]
        self._rngs()
        self._counters()

    def _looped_functions(self, levels: int = 2) -> set[str]:
        """Functions called inside a loop (and the functions they call, ``levels`` deep): a
        ``train_step()`` called once per iteration steps its optimizer inside the loop."""
        found: set[str] = set()
        frontier = {tail(c.func) for c, _ in self.index.calls if self.loops.get(id(c))}
        for _ in range(levels):
            scopes = {sc.name for name in frontier if name for sc in self.index.by_short.get(name, [])} - found
            found |= scopes
            frontier = {tail(c.func) for c, sc in self.index.calls if sc.name in scopes}
        return found

    def _model_of(self, arg: ast.AST, line: int, scope: Scope) -> None:
        for sub in ast.walk(arg):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in (
                    "parameters", "named_parameters"):
                if (name := tail(sub.func.value)) and name not in self.objects:
                    created = [ln for ln, _ in scope.assigns.get(name, []) if ln <= line]
                    self.add(name, "model", created[0] if created else line, scope)
                return

    def _rngs(self) -> None:
        drawn: dict[str, tuple[int, Scope]] = {}
        seeded: set[str] = set()
        for call, scope in self.index.calls:
            name = self.index.dotted(call.func)
            own = any(k.arg == "generator" for k in call.keywords)  # torch.randint(..., generator=g): not global
            for rng, pattern in RNG_DRAWS.items():
                if pattern.search(name) and rng not in drawn and not own:
                    drawn[rng] = (call.lineno, scope)
            if name.endswith("DataLoader") and any(k.arg == "shuffle" and not (
                    isinstance(k.value, ast.Constant) and not k.value.value) for k in call.keywords):
                drawn.setdefault("rng_torch", (call.lineno, scope))
            for rng, seeds in SEEDS.items():
                if name in seeds:
                    seeded.add(rng)
                    if rng == "rng_cuda":
                        drawn.setdefault("rng_cuda", (call.lineno, scope))
        names = {"rng_torch": "torch.random", "rng_numpy": "numpy.random", "rng_python": "random",
                 "rng_cuda": "torch.cuda.random"}
        for rng, (line, scope) in drawn.items():
            if rng in seeded:  # an unseeded run is not reproducible anyway: its RNG state is not a resume fault
                self.add(names[rng], rng, line, scope)

    def _counters(self) -> None:
        steppers = {n for n, o in self.objects.items() if o.kind in ("optimizer", "grad_scaler")}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and COUNTER.match(node.target.id):
                it = node.iter
                if not (isinstance(it, ast.Call) and tail(it.func) == "range"):
                    continue
                if not self._steps_inside(node, steppers):
                    continue
                scope = self.index.scope(node)
                obj = self.add(node.target.id, "counter", node.lineno, scope)
                start = it.args[0] if len(it.args) >= 2 else None
                if start is not None and not isinstance(start, ast.Constant):
                    obj.restored.append(node.lineno)
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and (
                    name := tail(node.target)) and COUNTER.match(name) and self.loops.get(id(node)):
                scope = self.index.scope(node)
                if any(self._steps_inside(loop, steppers) for loop in self.loops[id(node)]):
                    obj = self.add(name, "counter", node.lineno, scope)
                    values = [v for sc in self.index.scopes.values() for _, v in sc.assigns.get(name, [])
                              if v is not node.value]
                    if any(not isinstance(v, ast.Constant) for v in values):
                        obj.restored.append(node.lineno)

    def _steps_inside(self, loop: ast.AST, steppers: set[str]) -> bool:
        for sub in ast.walk(loop):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "step":
                if tail(sub.func.value) in steppers:
                    return True
            if isinstance(sub, ast.Call) and any(tail(a) in steppers for a in (*sub.args, *(k.value for k in
                                                                                      sub.keywords))):
                return True  # train_one_epoch(model, loader, optimizer, ...)
            if isinstance(sub, ast.Call) and (callee := tail(sub.func)) and callee != "step":
                for fn in self.index.by_short.get(callee, [])[:2]:  # train_one_epoch(model, optimizer, ...)
                    if fn.node is not loop and any(
                            isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "step"
                            and tail(c.func.value) in steppers for c in ast.walk(fn.node)):
                        return True
        return False

    # -- 2./3. saves, loads, implicit frameworks ------------------------------------------------------
    def find_saves_and_loads(self) -> None:
        idx = self.index
        self.flow.interpret()
        guarded = _resume_guarded(self.tree)
        prepared: set[str] = set()
        for call, scope in idx.calls:
            name = idx.dotted(call.func)
            attr = call.func.attr if isinstance(call.func, ast.Attribute) else ""
            if attr in ("prepare", "register_for_checkpointing"):
                prepared |= {t for a in call.args if (t := tail(a))}
                for target_name, values in scope.assigns.items():
                    if any(v is call for _, v in values):
                        prepared.add(target_name)
        for call, scope in idx.calls:
            name = idx.dotted(call.func)
            attr = call.func.attr if isinstance(call.func, ast.Attribute) else ""
            short = name.rsplit(".", 1)[-1] if name else attr
            entry = {"line": call.lineno, "function": scope.name, "call": name or attr}
            # a local function is followed through its own torch.save; torch's and accelerate's own are known
            helper = not self.index.by_short.get(short) and short not in ("load_state_dict", "load_state",
                                                                         "save_state", "state_dict")
            if helper and LOAD_HELPERS.match(short or "") and (call.args or call.keywords):
                self.report.loads.append(entry)
                passed = {t for a in (*call.args, *(k.value for k in call.keywords)) if (t := tail(a))}
                for obj_name in passed & set(self.objects):
                    self.objects[obj_name].restored.append(call.lineno)
                continue
            if name in SAVE_CALLS or (attr == "save" and tail(call.func.value) in ("fabric", "xm")) or (
                    helper and SAVE_HELPERS.match(short or "") and (call.args or call.keywords)):
                if helper and SAVE_HELPERS.match(short or ""):
                    arg = ast.Tuple(elts=[*call.args, *(k.value for k in call.keywords)], ctx=ast.Load())
                else:
                    arg = call.args[1] if attr == "save" and tail(call.func.value) == "fabric" and len(call.args) > 1 \
                        else (call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in (
                            "obj", "state_dict", "tensors", "state")), None))
                if arg is None:
                    continue
                carried = self._carried(arg)
                carried |= {s for a in call.args[1:2] for s in self._carried(a)} & {
                    n for n, o in self.objects.items() if o.kind == "counter"}
                self.report.saves.append(entry)
                self._mark(carried, "saved", call.lineno, scope)
            elif attr == "save_state" and prepared:
                self.report.saves.append(entry)
                self._implicit(prepared, "accelerate", "saved", call.lineno)
            elif name in LOAD_CALLS or (attr == "load" and tail(call.func.value) == "fabric"):
                self.report.loads.append(entry)
                for target_name, values in scope.assigns.items():
                    if target_name in self.objects and any(v is call for _, v in values):
                        self.objects[target_name].restored.append(call.lineno)  # the whole pickled object
            elif attr == "load_state" and prepared:
                self.report.loads.append(entry)
                self._implicit(prepared, "accelerate", "restored", call.lineno)
            elif attr == "load_state_dict" and (target := tail(call.func.value)):
                for obj_name in {target} | (self.flow.receiver(call) or set()):
                    if obj_name in self.objects:
                        self.objects[obj_name].restored.append(call.lineno)
                        self.resume_flag = self.resume_flag or id(call) in guarded
            elif short in RNG_SET:
                rng = self._rng_for(name, short)
                if rng is None:
                    continue
                rng.restored.append(call.lineno)
        for scope in idx.scopes.values():  # scheduler.last_epoch = start_epoch - 1 (YOLOv5): a closed-form restore
            for node in ast.walk(scope.node) if scope.name == "<module>" else ast.walk(scope.node):
                if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "last_epoch"
                                                        for t in node.targets):
                    for t in node.targets:
                        if isinstance(t, ast.Attribute) and (owner := tail(t.value)) in self.objects:
                            self.objects[owner].restored.append(node.lineno)
        self._frameworks()

    def _rng_for(self, name: str, short: str) -> StateObject | None:
        base = name.rsplit(".", 1)[0] if "." in name else ""
        if base in ("torch", "torch.random"):
            kind = "rng_torch"
        elif base == "torch.cuda":
            kind = "rng_cuda"
        elif base == "numpy.random":
            kind = "rng_numpy"
        elif base == "random":
            kind = "rng_python"
        else:  # gen.set_state(...) on a torch.Generator
            obj = self.objects.get(base.rsplit(".", 1)[-1])
            return obj if obj is not None and obj.kind == "generator" else None
        return next((o for o in self.objects.values() if o.kind == kind), None)

    def _carried(self, expr: ast.AST) -> set[str]:
        """Names a save's argument carried (:class:`~faultlib.detect.training.flow.StateFlow`); a helper's
        arguments gathered in one tuple carry what each does."""
        if isinstance(expr, ast.Tuple) and not hasattr(expr, "lineno"):  # the helper's arguments, gathered here
            return set().union(*(self._carried(e) for e in expr.elts))
        found = self.flow.carried(expr)
        if found is None:
            self.unreached.append(expr)
            return set()
        return found

    def _mark(self, carried: set[str], what: str, line: int, scope: Scope) -> None:
        for name, obj in self.objects.items():
            if obj.kind == "rng_torch":
                hit = "get_rng_state" in carried
            elif obj.kind == "rng_cuda":
                hit = "get_rng_state_all" in carried or {"cuda", "get_rng_state"} <= carried
            elif obj.kind == "rng_numpy":
                hit = "get_state" in carried and bool({"np", "numpy"} & carried)
            elif obj.kind == "rng_python":
                hit = "getstate" in carried
            elif obj.kind == "generator":
                hit = name in carried and "get_state" in carried
            else:
                hit = name in carried
            if hit:
                getattr(obj, what).append(line)

    def _implicit(self, names: set[str], framework: str, what: str, line: int) -> None:
        for name, obj in self.objects.items():
            if name in names or obj.kind.startswith("rng_"):  # accelerate saves every RNG state with save_state
                getattr(obj, what).append(line)
                obj.implicit = framework
        if framework not in self.report.implicit:
            self.report.implicit.append(framework)

    def _frameworks(self) -> None:
        modules = set(self.index.aliases.values())
        lightning = any(m.split(".")[0] in ("lightning", "pytorch_lightning") for m in modules)
        hf = any(m.split(".")[0] in ("transformers", "trl") and m.endswith("Trainer") for m in modules)
        for call, _ in self.index.calls:
            attr = call.func.attr if isinstance(call.func, ast.Attribute) else ""
            if lightning and attr == "fit" and "lightning" not in self.report.implicit:
                self.report.implicit.append("lightning")
            if hf and attr == "train" and "transformers.Trainer" not in self.report.implicit:
                self.report.implicit.append("transformers.Trainer")


def _resume_guarded(tree: ast.Module) -> set[int]:
    """Ids of the calls inside an ``if`` whose test names a resume (``if args.resume:``, ``if resume_from:``)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and any("resume" in (getattr(n, "id", None) or getattr(n, "attr", "")).lower()
                                            for n in ast.walk(node.test)):
            out |= {id(c) for stmt in node.body for c in ast.walk(stmt) if isinstance(c, ast.Call)}
    return out


def analyze_resume_source(source: str, path: str = "<string>") -> ResumeReport:
    """Analyse one training script's source.

    Args:
        source: Python source text.
        path: the file name used in locations and errors.

    Returns:
        A :class:`ResumeReport`: objects with the lines that save and restore them, the saves and loads
        seen, implicit frameworks, and findings of the kinds in :data:`~faultlib.detect.training.vocab.KINDS`.

    Raises:
        InputError: not valid Python (line and column named).
    """
    from faultlib.findings import analysis_incomplete

    too_deep = "the script is nested too deeply to follow"
    try:
        analysis = _Analysis(source, path)
    except RecursionError:  # the index itself could not be built: nothing was analysed
        return ResumeReport(path, findings=[analysis_incomplete(DETECTOR, too_deep, {"file": path})], complete=False)
    try:
        analysis.find_objects()
        analysis.find_saves_and_loads()
        judge(analysis.objects, analysis.report, analysis.creations, claims_resume=analysis.resume_flag)
        if not analysis.flow.complete:  # saves and restores past where it stopped were not seen
            analysis.report.complete = False
            analysis.report.findings.append(analysis_incomplete(DETECTOR, f"value flow {analysis.flow.stopped}",
                                                                {"file": path}))
    except RecursionError:
        analysis.report.complete = False
        analysis.report.findings.append(analysis_incomplete(DETECTOR, too_deep, {"file": path}))
    for obj in analysis.objects.values():
        obj.saved, obj.restored = sorted(set(obj.saved)), sorted(set(obj.restored))
    analysis.report.objects = sorted(analysis.objects.values(), key=lambda o: (o.line, o.name))
    return analysis.report


def analyze_resume_file(path: str) -> ResumeReport:
    """Read ``path`` through the hardened readers and analyse it (see :func:`analyze_resume_source`).

    Raises:
        InputError: not a ``.py`` file, unreadable, too large, empty or not valid Python.
    """
    from pathlib import Path

    from faultlib.errors import InputError
    from faultlib.readers import read_text

    if Path(path).suffix.lower() not in (".py", ".pyw"):
        raise InputError(f"is not a Python script ({Path(path).suffix or 'no extension'}): pass a .py file", path=path)
    source = read_text(path)
    if not source.strip():
        raise InputError("is empty: expected a Python training script", path=path)
    return analyze_resume_source(source, str(path))
