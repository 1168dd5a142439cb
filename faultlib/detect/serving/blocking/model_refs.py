"""A third-party class constructed from a model reference loads that model; its instances run it.

Beyond the vocabulary's lists: any class of an installed package (not a class of the analysed files) called with a
*model reference* -- a Hugging Face Hub id (``"BAAI/bge-reranker-base"``: ``owner/name``, the form every
``from_pretrained``-style loader takes, https://huggingface.co/docs/hub/models-the-hub) or the path of a weights file
(``"5gram.bin"``, ``"model.onnx"``, ``"ggml-model.gguf"``...) -- reads the weights in its constructor, from disk or
the Hub, in the calling thread (``INSTRUCTOR("hkunlp/instructor-large")``, ``CrossEncoder(name)``,
``kenlm.Model("lm.bin")``): ``blocking_file_io`` at the call. Every class the analysed code constructs so (or loads
with its loader classmethod, ``OmniVoice.from_pretrained("k2-fsa/OmniVoice")``: the Hugging Face convention) is a
model class for the whole run: its inference methods (:data:`~faultlib.detect.serving.blocking.libraries.loaded.
INFERENCE`, ``encode``, ``predict``, ``__call__``...) run the model (``blocking_cpu``).

The reference is the first positional argument or a keyword that names a model (:data:`MODEL_KEYWORDS`), a string
literal or a name (local, or module global) assigned exactly one literal, or a module dict literal indexed by a
literal key. Left out (no finding): clients of a hosted model, which only record the model's name -- a class named
like a client (:data:`CLIENT_WORDS`), a call with an address or a key (:data:`REMOTE_KEYWORDS`), a class of a hosted
LLM API's package (:data:`HOSTED_PACKAGES`) --; strings of another shape (MIME types ``text/plain``, data files
``conf/app.yaml``, URLs). Used by :func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast
import re
import sys

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.libraries.loaded import INFERENCE
from faultlib.detect.serving.blocking.model import Func, Module, dotted, nodes_of

__all__ = ["constructed_site", "model_reference", "run_site"]

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_QUOTED = re.compile(r"""(["'])([\w./-]{3,200})\1""")
"""A short quoted string of the characters a reference has (a cheap text test before a module's calls are read)."""
WEIGHT_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".safetensors", ".onnx", ".gguf", ".ggml", ".h5", ".keras",
                   ".tflite", ".arpa", ".klm", ".mlmodel", ".engine", ".model")
"""Weights files: PyTorch, safetensors, ONNX, llama.cpp, Keras/TF Lite, KenLM, Core ML, TensorRT, SentencePiece."""
MIME_TOPS = frozenset({"application", "audio", "font", "image", "message", "multipart", "text", "video"})
MODEL_KEYWORDS = frozenset({"model", "model_name", "model_id", "model_name_or_path", "pretrained_model_name_or_path",
                            "model_path", "model_file", "checkpoint", "checkpoint_path", "repo_id", "weights",
                            "weights_path"})
REMOTE_KEYWORDS = frozenset({"api_key", "base_url", "api_base", "endpoint", "endpoint_url", "url", "host",
                             "api_url", "token", "openai_api_key", "server_url"})
CLIENT_WORDS = ("Client", "Chat", "Endpoint", "Api", "API", "Remote", "Hosted", "Request", "Config", "Settings",
                "Args", "Arguments", "Params", "Options", "Schema")
HOSTED_PACKAGES = frozenset({"openai", "anthropic", "litellm", "groq", "mistralai", "together", "cohere", "replicate",
                             "ollama", "langchain_openai", "langchain_anthropic", "langchain_groq",
                             "langchain_mistralai", "langchain_google_genai", "langchain_google_vertexai",
                             "langchain_ollama", "langchain_together", "langchain_cohere", "google", "vertexai",
                             "huggingface_hub", "boto3", "botocore", "azure", "pydantic", "agents", "pydantic_ai",
                             "strands"})
"""Packages of hosted models' clients (their classes name a model they do not load) and of plain data classes; and
agent frameworks whose ``Agent(model="provider/name")`` records the name of a hosted model it will call: the OpenAI
Agents SDK ("model: The model implementation to use when invoking the LLM", a name such as ``"litellm/anthropic/..."``
routed to a provider, https://openai.github.io/openai-agents-python/models/), Pydantic AI (``Agent("openai:gpt-4o")``,
https://ai.pydantic.dev/models/overview/) and Strands Agents (a model id of Amazon Bedrock by default,
https://strandsagents.com/latest/documentation/docs/user-guide/concepts/model-providers/)."""


def model_reference(call: ast.Call, func: Func | None, module: Module) -> str | None:
    """The model reference ``call`` is given (see the module docstring), or None."""
    candidates = [*call.args[:1], *(k.value for k in call.keywords if k.arg in MODEL_KEYWORDS)]
    for arg in candidates:
        text = _text(arg, func, module)
        if text is not None and _is_reference(text):
            return text
    return None


def constructed_site(index, target: str, call: ast.Call, func: Func) -> str | None:
    """What the constructor call ``target(...)`` does when it loads a model from a reference (None otherwise)."""
    if not _candidate_class(target) or _remote(call):
        return None
    ref = model_reference(call, func, func.module)
    return None if ref is None else f"{target} (constructed from the model reference {ref!r}: loads the weights)"


def run_site(index, owner: str, method: str) -> bool:
    """Whether ``owner.method`` runs a model: ``owner`` is a class the analysed code constructs from a model
    reference, ``method`` one of its inference methods -- or, for a class it loads with a loader classmethod
    (``SNAC.from_pretrained(repo)``), any public method or submodule beyond the module's housekeeping
    (``model.decoder(z)``: :func:`~faultlib.detect.serving.blocking.vocab.runs_model_code`)."""
    if owner not in _model_classes(index):
        return False
    return method in INFERENCE or (owner in _hub_loaded_classes(index) and vocab.runs_model_code(method))


def _hub_loaded_classes(index) -> frozenset[str]:
    """The classes of :func:`_model_classes` that some call loads with a loader classmethod (once per index): a
    ``from_pretrained``-style class is a model whose code the analysis does not read -- the Hugging Face convention
    is a ``torch.nn.Module`` (``PreTrainedModel``, ``PyTorchModelHubMixin``: https://huggingface.co/docs/
    huggingface_hub/guides/integrations#a-more-flexible-approach-helpers) -- so, as for
    :data:`~faultlib.detect.serving.blocking.vocab.OPAQUE_MODELS`, calling one of its submodules
    (``self.model.decoder(z)``) runs its forward pass (held-out wave 75: a TTS server's SNAC codec decoded in its
    asyncio batch worker)."""
    found = index.__dict__.get("_hub_loaded_classes")
    if found is None:
        found = index.__dict__["_hub_loaded_classes"] = frozenset(
            name for module in index.distinct_modules() for name in _loaded_classes(index, module))
    return found


def _candidate_class(target: str) -> bool:
    name, top = target.rpartition(".")[2], target.partition(".")[0]
    return (vocab.is_third_party_instance(target) and top not in HOSTED_PACKAGES
            and top not in sys.stdlib_module_names and not any(word in name for word in CLIENT_WORDS))


_NOT_MODELS = ("Token", "Processor", "FeatureExtractor", "Config")
"""Classes loaded ``from_pretrained`` that hold no network: tokenizers, processors, configs (their ``encode`` is text
work, not a model's)."""


def _loaded_classes(index, module: Module) -> set[str]:
    """Third-party classes a function of ``module`` loads with their loader classmethod (``OmniVoice.from_pretrained(
    repo)``, :data:`~faultlib.detect.serving.blocking.vocab.LOAD_METHODS`): the method's argument is a model reference
    by the convention it follows, so the class is a model class as if it were constructed from a literal one."""
    found: set[str] = set()
    if not any(name in module.source for name in vocab.LOAD_METHODS):
        return found  # a cheap text test before the module's calls are read
    for func in module.all_functions:
        for node in func.nodes:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in vocab.LOAD_METHODS and (node.args or node.keywords) and not _remote(node)):
                continue
            callee = index.callee(node.func, func)
            owner = callee.rpartition(".")[0] if isinstance(callee, str) else ""
            if owner and _candidate_class(owner) and not any(word in owner.rpartition(".")[2] for word in _NOT_MODELS):
                found.add(owner)
    return found


def _remote(call: ast.Call) -> bool:
    return any(k.arg in REMOTE_KEYWORDS for k in call.keywords)


def _model_classes(index) -> frozenset[str]:
    """Every third-party class some call of the analysed code constructs from a model reference (once per index)."""
    found = index.__dict__.get("_model_ref_classes")
    if found is not None:
        return found
    classes: set[str] = set(_hub_loaded_classes(index))
    for module in index.distinct_modules():
        if not any(_is_reference(m.group(2)) for m in _QUOTED.finditer(module.source)):
            continue  # no literal a model reference could come from (a module dict's entry is in it too)
        scopes: list[tuple[Func | None, list[ast.AST]]] = [(f, f.nodes) for f in module.all_functions]
        scopes.append((None, [n for stmt in module.tree.body if not isinstance(
            stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.walk(stmt)]))
        for func, nodes in scopes:
            for node in nodes:
                if (isinstance(node, ast.Call) and (node.args or node.keywords) and not _remote(node)
                        and model_reference(node, func, module) is not None):
                    callee = index.callee(node.func, func) if func is not None else _top_level_callee(index, node,
                                                                                                     module)
                    if isinstance(callee, str) and _candidate_class(callee):
                        classes.add(callee)
    index.__dict__["_model_ref_classes"] = frozenset(classes)
    return index.__dict__["_model_ref_classes"]


def _top_level_callee(index, call: ast.Call, module: Module) -> str | None:
    parts = dotted(call.func)
    resolved = index.resolve_parts(parts, module, None) if parts else None
    return resolved if isinstance(resolved, str) else None


def _is_reference(text: str) -> bool:
    if text.lower().endswith(WEIGHT_SUFFIXES) and "://" not in text:
        return True
    if not HUB_ID.match(text) or text.partition("/")[0].lower() in MIME_TOPS:
        return False
    name = text.rpartition("/")[2]
    extension = name.rpartition(".")[2]
    if "." in name and extension.isalpha() and len(extension) <= 5:
        return False  # conf/app.yaml: a data file
    return "-" in name or any(c.isdigit() for c in name)  # bge-reranker-base, gpt2; not logs/screenshots


def _text(expr: ast.expr, func: Func | None, module: Module, depth: int = 0) -> str | None:
    """The string ``expr`` always is: a literal, a name assigned one literal, a literal dict's entry."""
    if depth > 3:
        return None
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, str) else None
    if isinstance(expr, ast.Name):
        value = _only_value(expr.id, func) if func is not None else None
        if value is None and (func is None or expr.id not in _stored(func)):
            values = module.global_values.get(expr.id, [])
            value = values[0][0] if len(values) == 1 else None
        return None if value is None else _text(value, func, module, depth + 1)
    if (isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Constant)
            and (func is None or expr.value.id not in _stored(func))):
        values = module.global_values.get(expr.value.id, [])
        table = values[0][0] if len(values) == 1 else None
        if isinstance(table, ast.Dict):
            for key, value in zip(table.keys, table.values):
                if isinstance(key, ast.Constant) and key.value == expr.slice.value:
                    return _text(value, None, module, depth + 1)
    return None


def _stored(func: Func) -> set[str]:
    return _locals(func)[0]


def _only_value(name: str, func: Func) -> ast.expr | None:
    """The value of the only assignment of ``name`` in ``func`` (None: a parameter, or assigned elsewhere/again)."""
    return _locals(func)[1].get(name)


def _locals(func: Func) -> tuple[set[str], dict[str, ast.expr]]:
    """The names ``func`` binds (parameters, stores) and the value of each local assigned exactly once (per func)."""
    found = func.__dict__.get("_faultlib_ref_locals")
    if found is None:
        args = func.node.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        stores: dict[str, int] = {}
        values: dict[str, ast.expr] = {}
        for n in nodes_of(func, ast.Name):
            if isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        for n in nodes_of(func, ast.Assign):  # the last assignment of a name written once: its only one
            if len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                values[n.targets[0].id] = n.value
        single = {k: v for k, v in values.items() if stores.get(k) == 1 and k not in params}
        found = func.__dict__["_faultlib_ref_locals"] = (params | set(stores), single)
    return found
