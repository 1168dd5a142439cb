"""An annotation that names a factory function rather than a class: the value is what the factory makes.

``def __get_s3_client() -> boto3.client:`` names boto3's function ``boto3.client``, whose result is a botocore
client (https://boto3.amazonaws.com/v1/documentation/api/latest/reference/core/boto3.html#boto3.client: "Create a
low-level service client by name"); no value is an instance of a function, so the annotation can only mean "what
``boto3.client`` returns". Read as a type it was a name no family describes, and it hid the body's own
``return boto3.client("s3", ...)``: ``s3_client.put_object(...)`` on the result went unjudged (held-out wave 55: an
S3 upload in an async endpoint, reached through a name-mangled private staticmethod; listed at stop 48). A dotted
name is such a factory when its last part is lower case (PEP 8: function names are lower case, class names
CapWords), the vocabulary records what calling it returns, and the vocabulary never uses the name as a type itself
(``socket.socket`` is a lower-case class an entry returns). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.annotation_type`.
"""

from __future__ import annotations

__all__ = ["factory_made"]


def factory_made(vocab, dotted_name: str) -> str | None:
    """What the factory function ``dotted_name`` (an annotation resolved to a library name) returns by the
    vocabulary, when the name is such a factory (see the module docstring); else None."""
    if not dotted_name.rpartition(".")[2][:1].islower():
        return None
    made = vocab.returns.get(dotted_name)
    if made is None or dotted_name in vocab.returns.values() or vocab._families_of(dotted_name):
        return None
    return made
