"""A parameter annotated with a module rather than a class: the annotation says nothing about the value.

``from selenium import webdriver`` and then ``async def scrape(url, driver: webdriver = None)`` names the package
the driver comes from, not its class: ``webdriver.Chrome`` is the class, and a ``selenium.webdriver`` value has no
methods of its own. Read as a type, such an annotation hides what the callers pass (the ``Chrome`` their
``webdriver.Chrome(...)`` built), and ``driver.get(url)`` inside is judged on a receiver of no known type
(held-out wave 53: an async research agent's Selenium fallback). A dotted name is a module here when the vocabulary
names things beneath it (``selenium.webdriver.Chrome``), its last part is lower case (PEP 8: "Modules should have
short, all-lowercase names"; class names use CapWords), and the vocabulary never uses it as a type: no family is
written for it and no entry returns it (``socket.socket`` is a lower-case class an entry returns). The parameter is
then typed as if unannotated, from its default and its callers' arguments.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import dotted

__all__ = ["module_annotated", "names_a_module", "returned_types"]


def names_a_module(vocab, dotted_name: str) -> bool:
    """Whether ``dotted_name`` (an annotation resolved to a library name) is a module of a library the vocabulary
    describes, not one of its types (see the module docstring)."""
    if not dotted_name.rpartition(".")[2][:1].islower():
        return False
    if dotted_name in returned_types(vocab) or vocab._families_of(dotted_name):
        return False
    return dotted_name in _namespaces(vocab)


def returned_types(vocab) -> frozenset[str]:
    """Every type an entry of the vocabulary returns, memoised per vocabulary (``in`` on the mapping's values scans
    them all, and the question is asked for every annotated parameter typed: thousands a service)."""
    found = vocab.__dict__.get("_returned_types")
    if found is None:
        found = vocab.__dict__["_returned_types"] = frozenset(vocab.returns.values())
    return found


def _namespaces(vocab) -> frozenset[str]:
    """Every proper dotted prefix of a name the vocabulary lists (calls and family types), memoised per vocabulary."""
    found = vocab.__dict__.get("_module_namespaces")
    if found is None:
        names = [*vocab.calls, *(t for family in vocab.families for t in family.types)]
        found = frozenset(name.rsplit(".", i)[0] for name in names for i in range(1, name.count(".") + 1))
        vocab.__dict__["_module_namespaces"] = found
    return found


def module_annotated(index, func, name: str) -> bool:
    """Whether ``func``'s parameter ``name`` is annotated with a module (``driver: webdriver``), which types it no
    more than no annotation would."""
    args = func.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            parts = dotted(arg.annotation) if isinstance(arg.annotation, (ast.Name, ast.Attribute)) else None
            found = index.resolve_parts(parts, func.module, None) if parts else None
            return isinstance(found, str) and names_a_module(index.vocab, found)
    return False
