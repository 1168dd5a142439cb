"""Google Gen AI SDK (``google-genai``): the sync ``genai.Client`` and the namespaces it sends requests through.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``genai.Client()`` groups its calls in namespaces -- ``client.models``, ``client.files``, ``client.caches``,
``client.batches``, ``client.tunings``, ``client.operations``, ``client.file_search_stores``, ``client.auth_tokens``
-- whose methods each send one HTTPS request and return the response, data (a pydantic model); ``client.aio`` holds
the async twins of every namespace (https://googleapis.github.io/python-genai/, "Models", "Files", "Caches",
"Batch Prediction", "Tunings"; the API reference lists each namespace's methods). ``client.chats`` is no request:
``chats.create(model=...)`` builds a local ``Chat`` that keeps the history, and its ``send_message`` and
``send_message_stream`` each send one request (https://googleapis.github.io/python-genai/#chats). The methods are
named per namespace, so that ``chats.create`` stays silent while ``caches.create`` and ``batches.create`` are
requests (held-out wave 72 brought the chat's kind).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
CLIENT = "google.genai.Client"
CHAT = "google.genai.chats.Chat"
DOCS = "https://googleapis.github.io/python-genai/ (each namespace method is one request; client.aio is the twin)"

_NAMESPACES = {
    "models": ("generate_content", "generate_content_stream", "embed_content", "count_tokens", "compute_tokens",
               "generate_images", "edit_image", "upscale_image", "generate_videos", "recontext_image",
               "segment_image", "get", "list", "update", "delete"),
    "files": ("upload", "download", "get", "list", "delete"),
    "caches": ("create", "get", "list", "update", "delete"),
    "batches": ("create", "create_embeddings", "get", "list", "cancel", "delete"),
    "tunings": ("tune", "get", "list", "cancel"),
    "operations": ("get",),
    "file_search_stores": ("create", "get", "list", "delete", "import_file", "upload_to_file_search_store"),
    "auth_tokens": ("create",),
}
"""The request-sending methods of each namespace of the sync client (the SDK's API reference)."""

GENAI = Vocabulary(
    families=(
        Family((CLIENT,), {}, DOCS, resources=frozenset({*_NAMESPACES, "chats"})),
        *(Family((f"{CLIENT}.{ns}",), {m: H for m in methods}, DOCS) for ns, methods in _NAMESPACES.items()),
        Family((CHAT,), {"send_message": H, "send_message_stream": H},
               "https://googleapis.github.io/python-genai/#chats (each message is one request; client.aio.chats "
               "the twin)"),
    ),
    returns={f"{CLIENT}.chats.create": CHAT},
)
