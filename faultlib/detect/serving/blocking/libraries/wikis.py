"""Wiki clients whose page objects fetch on a property read: ``page = wikipedia.page(q)`` then ``page.content``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
The ``wikipedia`` package (its functions are already sync requests: the ``wikipedia`` family in
:mod:`~faultlib.detect.serving.blocking.sdks`) returns from ``page()`` a ``WikipediaPage`` holding only the title,
id and URL; its ``content``, ``summary``, ``images``, ``links``, ``references``, ``categories``, ``sections``,
``coordinates`` and the revision ids are properties that query the MediaWiki API with ``requests`` on their first
read and keep the answer (https://wikipedia.readthedocs.io/en/latest/code.html#wikipedia.WikipediaPage, and the
package's ``wikipedia.py``: each property calls ``_wiki_request`` or a continued query when its memo is empty). So a
read of one of them in a coroutine is a request on the loop, beside the one ``page()`` made (held-out wave 68: a
Discord command reading ``page.images`` and ``page.content`` after ``wikipedia.page``).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

H = "blocking_http"
WIKIPEDIA_PAGE = ("https://wikipedia.readthedocs.io/en/latest/code.html#wikipedia.WikipediaPage (content, summary, "
                  "images, links, ... are loaded from the MediaWiki API on first access)")
_PAGES = ("wikipedia.WikipediaPage", "wikipedia.wikipedia.WikipediaPage")
_LAZY = ("content", "summary", "images", "links", "references", "categories", "sections", "coordinates",
         "revision_id", "parent_id")

WIKIS = Vocabulary(
    reads={f"{page}.{p}": (H, WIKIPEDIA_PAGE) for page in _PAGES for p in _LAZY},
    returns={f"{module}.page": "wikipedia.WikipediaPage" for module in ("wikipedia", "wikipedia.wikipedia")},
)
