"""Words in identifiers that name a server, a credential or a database (``api_url``, ``apiKey``, ``dsn``).

The evidence vocabulary of :mod:`faultlib.detect.serving.blocking.inferred` (unlisted synchronous SDK clients inferred
from the code) and :mod:`faultlib.detect.serving.blocking.made_handles` (clients built by factories): an argument,
keyword or variable whose words are among these gives the object a server to talk to.
"""

from __future__ import annotations

import ast
import re

from faultlib.detect.serving.blocking.model import dotted

ENDPOINT_WORDS = frozenset({"url", "uri", "urls", "host", "hostname", "hosts", "port", "endpoint", "server",
                            "servers", "baseurl", "dsn", "address", "addr"})
"""Words of an argument (split at ``_`` and case changes) that give the object a server to talk to."""
CREDENTIAL_WORDS = frozenset({"token", "password", "passwd", "apikey", "credentials", "credential", "auth",
                              "username"})
"""Words of an argument that give it credentials for a server (``api_key``/``apiKey`` read as ``apikey``). Not
``secret``: measured on the corpus, a secret is a signing key as often (``URLSafeTimedSerializer(secret_key)``,
``TOTP(secret)``, a JWT's ``token_secret``: local cryptography, 18 false alarms)."""
DB_WORDS = frozenset({"dsn", "database", "keyspace"})
"""Words that say the server is a database (the finding's kind is then ``blocking_db``)."""
SERVER_WORDS = ENDPOINT_WORDS | CREDENTIAL_WORDS | DB_WORDS
WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def words(name: str) -> set[str]:
    """The lower-case words of an identifier or option name (``api_key``, ``apiKey`` -> also ``apikey``;
    ``base_url`` -> also ``baseurl``)."""
    words = [w.lower() for w in WORD.findall(name)]
    return {*words, *(a + b for a, b in zip(words, words[1:]))}


def named_words(expr: ast.expr, last: bool = False) -> set[str]:
    """The words of the name a positional argument is read from: a local ``token``, ``settings.GITLAB_TOKEN``,
    ``config["api_url"]``, ``os.environ["QB_HOST"]``, ``os.getenv("QB_HOST")`` (never free text, never the owner of
    an attribute: ``url.title`` is a title); with ``last``, only the name's last word (``file_path``: ``path``;
    ``file_bytes``: ``bytes``, the content rather than where it is)."""
    if last:
        name = WORD.findall(own_name(expr))
        return {name[-1].lower()} if name else set()
    return words(own_name(expr))


def own_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    key = None
    if isinstance(expr, ast.Subscript):
        key = expr.slice
    elif isinstance(expr, ast.Call) and (dotted(expr.func) or [""])[-1] in ("getenv", "get", "environ") and expr.args:
        key = expr.args[0]
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
        return key.value
    return ""


ADDRESSING_WORDS = frozenset({"json", "xml", "css", "jq", "query", "key", "attr", "attribute", "field", "dict",
                              "object", "dotted", "module", "import", "url", "uri", "route", "api", "endpoint"})
"""Words that make a ``..._path`` name an address inside something else rather than a file: a JSONPath or XPath
query (``json_path = "$.data.price"``), a key or attribute path, a module's dotted path, the path part of a URL or an
API route (``url_path``, ``api_path``)."""


def addressing_path(expr: ast.expr) -> bool:
    """The name ``expr`` is read from ends in ``path`` qualified by one of :data:`ADDRESSING_WORDS`
    (``json_path``, ``settings.url_path``), or is the ``path`` attribute of such a name (``request.url.path``, a
    Starlette URL's path part: https://www.starlette.io/requests/#url): a query or an address, not a file to open."""
    name = [w.lower() for w in WORD.findall(own_name(expr))]
    if name == ["path"] and isinstance(expr, ast.Attribute):  # request.url.path, parsed_uri.path: a URL's path part
        owner = [w.lower() for w in WORD.findall(own_name(expr.value))]
        return bool(owner) and owner[-1] in ADDRESSING_WORDS
    return len(name) >= 2 and name[-1] == "path" and name[-2] in ADDRESSING_WORDS

