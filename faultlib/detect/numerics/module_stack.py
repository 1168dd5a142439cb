"""The innermost running module, for every module and no code change (a wrapper of ``torch.nn.Module.__call__``).

Used by :class:`~faultlib.detect.numerics.nan_locator.NonFiniteLocator` to attribute a non-finite value to its module,
and by ``faultlib trace`` to see each outermost forward (its watch pass) and which models the script runs.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["ModuleStack"]


class ModuleStack:
    """Innermost running module, for every module and no code change: ``torch.nn.Module.__call__`` is wrapped.

    Args:
        on_root_forward: called as ``fn(module, args)`` before each outermost forward.
        on_root_output: called as ``fn(module, output)`` after each outermost forward that returned.
        every_module: track every module call (:attr:`current` is the innermost module); False tracks only
            the outermost calls (one Python call per nested module, no hooks: the cheap mode of
            ``faultlib trace``'s watch pass). It may be switched on while installed.
        on_new_root: called as ``fn(module)`` once per outermost module, before its first forward.

    A wrapper, not torch's global module hooks: a global hook sends every module of the model through
    ``Module._call_impl``'s slow path, which costs several times the wrapper's one Python frame per call.
    Where ``Module.__call__`` is torch's own ``_wrapped_call_impl`` (torch >= 2.1), the wrapper takes its place
    rather than calling it (it runs ``_compiled_call_impl`` or ``_call_impl`` as that function does), so a module
    call costs the same number of Python frames as without the wrapper: a nested call in the watch pass pays two
    attribute reads, nothing else.
    """

    def __init__(self, on_root_forward: Callable | None = None, on_root_output: Callable | None = None, *,
                 every_module: bool = True, on_new_root: Callable | None = None):
        self.stack: list[Any] = []
        self.names: dict[int, str] = {}
        self._named_from: dict[int, int] = {}  # id(module) -> id of the model its name is a path in
        self.roots: dict[int, Any] = {}
        self._on_new_root = on_new_root  # fn(module): once per outermost module, before its first forward
        self.forward_count = 0  # outermost forwards started (the current one included)
        self.every_module = every_module
        self._on_root_forward = on_root_forward
        self._on_root_output = on_root_output
        self._patched: tuple[Any, Any] | None = None
        self._patched_buffers: tuple[Any, Any] | None = None
        import weakref

        # module -> {buffer name: (file, line) of the register_buffer call}: where a causal mask was built
        self.buffer_sites: "weakref.WeakKeyDictionary[Any, dict[str, tuple]]" = weakref.WeakKeyDictionary()
        self.passing = True  # every call passes straight through: not installed, or paused (see pause)

    def pause(self) -> None:
        """Let every module call pass straight through (tracking nothing) until :meth:`resume`: one flag, not a
        swap of ``Module.__call__`` (assigning a class attribute of ``nn.Module`` invalidates the interpreter's
        caches of every subclass: ~20 us with torch.nn imported)."""
        self.passing = True

    def resume(self) -> None:
        """Track again after :meth:`pause` (nothing while not installed)."""
        self.passing = self._patched is None

    def install(self) -> "ModuleStack":
        from torch import nn

        original, stack, tracker = nn.Module.__call__, self.stack, self
        # in place of torch's own only while it is what this copies (else: another wrapper, another torch)
        direct = original is getattr(nn.Module, "_wrapped_call_impl", None) and set(
            original.__code__.co_names) == {"_compiled_call_impl", "_call_impl"}

        def __call__(module, *args, **kwargs):  # in place of torch's _wrapped_call_impl, plus the tracking
            if tracker.passing or (stack and not tracker.every_module):
                if not direct:
                    return original(module, *args, **kwargs)
                if module._compiled_call_impl is not None:
                    return module._compiled_call_impl(*args, **kwargs)
                return module._call_impl(*args, **kwargs)
            root = not stack
            if root:
                if id(module) not in tracker.roots:
                    tracker._new_root(module)
                tracker.forward_count += 1
                if tracker._on_root_forward is not None:
                    tracker._on_root_forward(module, args)
            stack.append(module)
            try:
                if not direct:
                    out = original(module, *args, **kwargs)
                elif module._compiled_call_impl is not None:
                    out = module._compiled_call_impl(*args, **kwargs)
                else:
                    out = module._call_impl(*args, **kwargs)
            finally:
                if stack and stack[-1] is module:
                    stack.pop()
            if root and tracker._on_root_output is not None:
                tracker._on_root_output(module, out)
            return out

        self._patched = (original, __call__)
        self.passing = False
        nn.Module.__call__ = __call__
        self._record_buffer_sites(nn)
        return self

    def _record_buffer_sites(self, nn: Any) -> None:
        """Wrap ``Module.register_buffer`` (called while models are built, not per step): :attr:`buffer_sites`."""
        original, sites = nn.Module.register_buffer, self.buffer_sites

        def register_buffer(module, name, tensor, *args, **kwargs):
            original(module, name, tensor, *args, **kwargs)
            if tensor is not None:
                from faultlib.detect.numerics.frames import user_frame

                try:
                    sites.setdefault(module, {})[name] = user_frame()
                except TypeError:  # a module that cannot be weakly referenced: its buffers have no site
                    pass

        self._patched_buffers = (original, register_buffer)
        nn.Module.register_buffer = register_buffer

    def buffer_site(self, module: Any, name: str) -> tuple[str | None, int | None]:
        """File and line where ``module`` registered its buffer ``name`` while installed, else ``(None, None)``."""
        try:
            return self.buffer_sites.get(module, {}).get(name, (None, None))
        except TypeError:
            return None, None

    def remove(self) -> None:
        """Undo :meth:`install` (a wrapper installed after this one stays, and passes through this one)."""
        from torch import nn

        if self._patched is not None:
            original, ours = self._patched
            self._patched = None
            self.passing = True
            if nn.Module.__call__ is ours:
                nn.Module.__call__ = original
        if self._patched_buffers is not None:
            original, ours = self._patched_buffers
            self._patched_buffers = None
            if nn.Module.register_buffer is ours:
                nn.Module.register_buffer = original

    def _new_root(self, module) -> None:
        """Name ``module``'s submodules by their attribute path in the largest model that holds it: the model found
        in the calling frames (``model.encoder(x)`` called on its own: ``encoder.0``, not ``0``), else ``module``
        itself. A name given from a smaller earlier root gives way to this one's (its model seen later)."""
        self.roots[id(module)] = module
        owner, path = _owner(module)
        inside = {id(sub) for sub in owner.modules()}
        for name, sub in module.named_modules():
            known = self._named_from.get(id(sub))
            if known is None or (known != id(owner) and known in inside):
                full = ".".join(part for part in (path, name) if part)
                self.names[id(sub)] = full or type(module).__name__
                self._named_from[id(sub)] = id(owner)
        if self._on_new_root is not None:
            self._on_new_root(module)

    def name_of(self, module) -> str:
        return self.names.get(id(module), type(module).__name__)

    @property
    def current(self) -> str | None:
        return self.name_of(self.stack[-1]) if self.stack else None


def _owner(module: Any, depth: int = 40) -> tuple[Any, str]:
    """The largest ``torch.nn.Module`` in the calling frames' locals (a method's ``self``, the script's ``model``)
    that holds ``module``, and ``module``'s attribute path in it; ``(module, "")`` when none does. Runs once per
    outermost module (its first forward), not per call."""
    import sys

    from torch import nn

    best, best_path, best_size = module, "", 0
    frame = sys._getframe(1)
    for _ in range(depth):
        if frame is None:
            break
        for value in list(frame.f_locals.values()):
            try:  # a user's object may refuse to be inspected (a proxy whose __class__ raises): not a model then
                if not isinstance(value, nn.Module) or value is module:
                    continue
                subs = list(value.named_modules())
            except Exception:  # noqa: BLE001 - whatever it raises, it names nothing
                continue
            path = next((name for name, sub in subs if sub is module), None)
            if path is not None and len(subs) > best_size:
                best, best_path, best_size = value, path, len(subs)
        frame = frame.f_back
    return best, best_path
