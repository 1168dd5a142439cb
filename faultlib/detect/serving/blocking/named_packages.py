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
``importlib.import_module`` somewhere in the files. The per-module form of the same registry,
``importlib.import_module(f"deepsearcher.llm.{name}")``, spells the package as the constant head of an f-string
ending in a dot: then every module of that package is importable by name and its classes count without the
``__init__``'s import. A class whose package nobody imports by a spelt name stays unbuilt.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass

__all__ = ["exported_to_lookup"]

IMPORTERS = frozenset({"__import__", "import_module"})


def exported_to_lookup(index, klass: Klass) -> bool:
    """Whether ``klass`` is bound by its package's ``__init__`` and that package is imported by a spelt name."""
    package = klass.module.name.rpartition(".")[0]
    if not package:
        return False
    wanted = package.split(".")
    spelt = _spelt_modules(index)
    if any(_same_tail(wanted, heads) for heads in spelt[1]):  # import_module(f"pkg.llm.{name}")
        return True
    init = index.modules.get(package)
    return (init is not None and init is not klass.module and _binds(init, klass.node.name)
            and any(_same_tail(wanted, names) for names in spelt[0]))


def _binds(init, name: str) -> bool:
    """``from .mod import Name`` (or ``import ... as Name``) at the top of the package's ``__init__``."""
    return any(isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names)
               for node in init.tree.body)


def _same_tail(wanted: list[str], spelt: list[str]) -> bool:
    n = min(len(wanted), len(spelt))
    return wanted[-n:] == spelt[-n:]


def _spelt_modules(index) -> tuple[list[list[str]], list[list[str]]]:
    """The dotted string constants (two parts or more) of the files, and the packages spelt as the constant head of an
    f-string (``f"pkg.llm.{name}"``), when the files call an importer; memoised per index."""
    memo = index.__dict__.get("_faultlib_spelt_modules")
    if memo is None:
        names, heads, importing = [], [], False
        for module in index.distinct_modules():
            if "import" not in module.source:
                continue
            for node in ast.walk(module.tree):
                if isinstance(node, ast.Call):
                    f = node.func
                    importing = importing or (isinstance(f, ast.Name) and f.id in IMPORTERS) or (
                        isinstance(f, ast.Attribute) and f.attr in IMPORTERS)
                elif isinstance(node, ast.Constant) and _dotted(node.value):
                    names.append(node.value.split("."))
                elif (isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant)
                      and isinstance(node.values[0].value, str) and node.values[0].value.endswith(".")
                      and _dotted(node.values[0].value[:-1])):
                    heads.append(node.values[0].value[:-1].split("."))
        memo = (names, heads) if importing else ([], [])
        index.__dict__["_faultlib_spelt_modules"] = memo
    return memo


def _dotted(value) -> bool:
    """A dotted name of two parts or more (``"deepsearcher.llm"``)."""
    return (isinstance(value, str) and "." in value and all(p.isidentifier() for p in value.split(".")))
