"""MaxMind's GeoIP2 and GeoLite2 databases: opening a ``.mmdb`` file (``geoip2.database.Reader``,
``maxminddb.open_database``) and geoip2's synchronous web-service client.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). The
reader's constructor opens the database file and reads it in the calling thread -- it memory-maps the file by default
(``MODE_AUTO``: the C extension's mmap, else Python's ``mmap``), reads the whole file into memory with
``MODE_MEMORY``, or keeps the file open with ``MODE_FILE`` -- then searches the file's tail for the metadata marker and
decodes the metadata section (https://geoip2.readthedocs.io/en/latest/#database-example and
https://maxminddb.readthedocs.io/en/latest/ "open_database(database, mode=MODE_AUTO)"). The lookups on an open
reader (``reader.city(ip)``) are searches of the mapped tree in memory and stay silent here. The web service's
``geoip2.webservice.Client`` sends an HTTPS request per lookup (``city``/``country``/``insights``); its
``AsyncClient`` twin is awaited and not named. Held-out wave 83: a log-ingestion service's ``create_reader(path)``,
a plain function that builds the ``Reader``, called by the async service start Litestar awaits on startup.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

F, H = "blocking_file_io", "blocking_http"
GEOIP2_DATABASE = ("https://geoip2.readthedocs.io/en/latest/#database-example (geoip2.database.Reader(fileish, "
                   "locales, mode) opens the GeoIP2/GeoLite2 .mmdb file through maxminddb, reading its metadata; "
                   "the lookups then search the opened database)")
MAXMINDDB = ("https://maxminddb.readthedocs.io/en/latest/ (maxminddb.open_database(database, mode) opens, maps or "
             "reads the whole database file; maxminddb.Reader(database) likewise)")
GEOIP2_WEBSERVICE = ("https://geoip2.readthedocs.io/en/latest/#web-service-example (geoip2.webservice.Client's "
                     "city/country/insights send a request to MaxMind's web service and wait for the answer; "
                     "AsyncClient is the awaited twin)")
_READERS = ("geoip2.database.Reader",)
_MMDB = ("maxminddb.open_database", "maxminddb.Reader", "maxminddb.reader.Reader")
_CLIENTS = ("geoip2.webservice.Client",)

GEOIP = Vocabulary(
    calls={**{r: (F, GEOIP2_DATABASE) for r in _READERS}, **{m: (F, MAXMINDDB) for m in _MMDB}},
    families=(Family(_CLIENTS, {m: H for m in ("city", "country", "insights")}, GEOIP2_WEBSERVICE),),
    returns={**{r: r for r in _READERS}, **{m: "maxminddb.reader.Reader" for m in _MMDB},
             **{c: c for c in _CLIENTS}},
)
