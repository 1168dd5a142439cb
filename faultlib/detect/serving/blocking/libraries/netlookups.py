"""Helpers whose one call does network I/O the name does not show: ``email_validator.validate_email`` (DNS) and
youtube-search-python's synchronous searches (HTTP in the constructor), and dnspython's synchronous resolver.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
the census of unseen async services (``benchmarks/blocking_census.py``: sign-up endpoints, Telegram/Discord bots).
``validate_email(address)`` checks deliverability by default, resolving the domain's MX (then A/AAAA) records with
dnspython's blocking resolver; ``check_deliverability=False`` checks the syntax only (silent here). The search
classes of ``youtubesearchpython`` (``VideosSearch(query)``, ``Search``...) send the request when constructed and
``next()`` fetches the next page; the package's ``youtubesearchpython.__future__`` classes are its awaited twins
(another name, not named here).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

H = "blocking_http"
EMAIL_VALIDATOR = ("https://github.com/JoshData/python-email-validator#usage (check_deliverability=True, the default, "
                   "queries DNS for the domain's MX records with a blocking resolver)")
YOUTUBE_SEARCH = ("https://github.com/alexmercerind/youtube-search-python#usage (the synchronous classes fetch the "
                  "results when constructed and on next(); youtubesearchpython.__future__ holds the async ones)")
_SEARCHES = tuple(f"youtubesearchpython.{c}" for c in ("VideosSearch", "Search", "ChannelsSearch", "PlaylistsSearch",
                                                      "CustomSearch", "ChannelSearch"))

DNSPYTHON = ("https://dnspython.readthedocs.io/en/stable/resolver-class.html#dns.resolver.Resolver.resolve (a "
             "synchronous query: it sends the request and waits up to its lifetime for the answer; dns.asyncresolver "
             "is the async twin, https://dnspython.readthedocs.io/en/stable/async-resolver.html)")
DNSPYTHON_QUERY = ("https://dnspython.readthedocs.io/en/stable/query.html (dns.query.udp/tcp/... send one message and "
                   "wait for the response; dns.asyncquery holds the coroutines)")
_RESOLVERS = ("dns.resolver.Resolver",)
_RESOLVE = ("resolve", "query", "resolve_address", "resolve_name", "canonical_name", "zone_for_name")

NET_LOOKUPS = Vocabulary(
    calls={
        "email_validator.validate_email": ("blocking_socket_io", EMAIL_VALIDATOR),
        **{f"dns.resolver.{f}": ("blocking_socket_io", DNSPYTHON) for f in _RESOLVE},
        **{f"dns.query.{f}": ("blocking_socket_io", DNSPYTHON_QUERY) for f in ("udp", "tcp", "tls", "https", "quic",
                                                                              "udp_with_fallback", "xfr")},
        **{c: (H, YOUTUBE_SEARCH) for c in _SEARCHES},
        **{f"youtubesearchpython.{c}.get": (H, YOUTUBE_SEARCH) for c in ("Video", "Playlist", "Channel",
                                                                          "Suggestions", "Transcript")},
    },
    when={"email_validator.validate_email": BlocksWhen("check_deliverability", test="true", absent=True)},
    families=(Family(_SEARCHES, {"next": H}, YOUTUBE_SEARCH),
              Family(_RESOLVERS, {m: "blocking_socket_io" for m in _RESOLVE}, DNSPYTHON)),
    returns={**{c: c for c in _SEARCHES}, **{c: _RESOLVERS[0] for c in _RESOLVERS},
             "dns.resolver.get_default_resolver": _RESOLVERS[0]},
)
