"""Domain-name parsing against the Public Suffix List: tldextract.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``tldextract.extract(url)`` (the module-level default extractor) and a ``TLDExtract`` instance's call,
``extract_str`` and ``extract_urllib`` load the suffix list on their first use in a process: from the disk cache
when one is there, else over HTTP from publicsuffix.org with ``requests`` (then written to the cache);
``update()`` fetches it again. Later calls use the list held in memory, so the entries report every call on the
loop as the time-zone lookups do (:mod:`~faultlib.detect.serving.blocking.libraries.timezones`): which call comes
first is not known statically.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

TLDEXTRACT = ("https://github.com/john-kurkowski/tldextract#note-about-caching (on first use it fetches the latest "
              "Public Suffix List over HTTP and caches it to disk; later runs read the cached copy)")

_EXTRACTORS = ("tldextract.TLDExtract", "tldextract.tldextract.TLDExtract")

ONCE_PER_PROCESS = frozenset({"tldextract.extract", "tldextract.tldextract.extract"})
"""Calls that share one default extractor for the whole process: only the first loads the suffix list, later ones
look up the list held in memory (:mod:`~faultlib.detect.serving.blocking.warmed_libraries`)."""

DOMAINS = Vocabulary(
    calls={
        "tldextract.extract": (H, TLDEXTRACT),
        "tldextract.tldextract.extract": (H, TLDEXTRACT),
    },
    families=(
        Family(_EXTRACTORS, {"__call__": H, "extract_str": H, "extract_urllib": H, "update": H}, TLDEXTRACT),
    ),
)
