"""Fault injectors: named, parameterised shims that a case's ``inject.local`` list names.

An injector is a small class with a closed JSON Schema for its parameters and two
methods, :meth:`Injector.apply` and :meth:`Injector.revert`. Injectors register
through the ``faultlib.injectors`` entry-point group, the built-ins exactly like
third-party plugins (see ``pyproject.toml``), so a case file only ever names a
registered injector and never an import path or a shell command.
"""

from faultlib.inject.base import FaultTarget, Injector, InjectorSet, WindowedInjector
from faultlib.inject.registry import available, build, injector_class

__all__ = ["FaultTarget", "Injector", "InjectorSet", "WindowedInjector", "available", "build", "injector_class"]
