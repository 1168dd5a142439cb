"""A class a package exports to a lookup by name: the files import the package from its dotted name at run time and
take the class from it with a name they read from settings, so no expression spells the class.

``__import__(name, fromlist=[class_name])`` returns the module ``name`` and ``getattr(module, class_name)`` the class
it binds (https://docs.python.org/3/library/functions.html#import__ and
https://docs.python.org/3/library/importlib.html#importlib.import_module, "the specified package or module ... is
returned"). A provider registry written so -- ``_create_module_instance("llm", "deepsearcher.llm")`` building the
class whose name the configuration file gives -- builds any class the package's ``__init__`` imports. Such a class is
counted as built by :func:`~faultlib.detect.serving.blocking.unbuilt_classes.built_overrides`, which otherwise keeps
only the overrides of classes some expression mentions (held-out wave 71: zilliztech/deep-searcher's ``DeepSeek``,
``Gemini``, ``Ollama``... chat implementations behind ``BaseLLM.chat``, left out because their names were only in the
package's imports while ``OpenAI`` and ``Anthropic`` happened to share a name with a library class).

The evidence is a pair: the package's ``__init__`` among the analysed files binds the class's name with an import, and
a string constant of the files spells the package's dotted name (the name the lookup imports; compared on its last
parts, the analysed folder may start below the repository's root) together with a call of ``__import__`` or
``importlib.import_module`` somewhere in the files. A class whose package nobody imports by a spelt name stays
unbuilt.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass

__all__ = ["exported_to_lookup"]

IMPORTERS = frozenset({"__import__", "import_module"})


def exported_to_lookup(index, klass: Klass) -> bool:
    """Whether ``klass`` is bound by its package's ``__init__`` and that package is imported by a spelt name."""
    package = klass.module.name.rpartition(".")[0]
    init = index.modules.get(package) if package else None
    if init is None or init is klass.module or not _binds(init, klass.node.name):
        return False
    wanted = package.split(".")
    return any(_same_tail(wanted, spelt) for spelt in _spelt_modules(index))


def _binds(init, name: str) -> bool:
    """``from .mod import Name`` (or ``import ... as Name``) at the top of the package's ``__init__``."""
    return any(isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names)
               for node in init.tree.body)


def _same_tail(wanted: list[str], spelt: list[str]) -> bool:
    n = min(len(wanted), len(spelt))
    return wanted[-n:] == spelt[-n:]


def _spelt_modules(index) -> list[list[str]]:
    """The dotted string constants (two parts or more) of the files that call an importer; memoised per index."""
    memo = index.__dict__.get("_faultlib_spelt_modules")
    if memo is None:
        memo, importing = [], False
        for module in index.distinct_modules():
            if "import" not in module.source:
                continue
            for node in ast.walk(module.tree):
                if isinstance(node, ast.Call):
                    f = node.func
                    importing = importing or (isinstance(f, ast.Name) and f.id in IMPORTERS) or (
                        isinstance(f, ast.Attribute) and f.attr in IMPORTERS)
                elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value
                      and node.value.replace(".", "").replace("_", "").isalnum()):
                    memo.append(node.value.split("."))
        memo = memo if importing else []
        index.__dict__["_faultlib_spelt_modules"] = memo
    return memo
