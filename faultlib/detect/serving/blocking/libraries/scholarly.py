"""Scholarly-metadata libraries that look identifiers up and deposit records over HTTP: commonmeta-py.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
commonmeta-py (https://github.com/front-matter/commonmeta-py) converts between metadata formats with the sync
``requests``/``httpx`` clients: ``Metadata(string)`` given a DOI, URL or other identifier finds its registration
agency and fetches the record from that agency's API (``commonmeta/metadata.py``: ``normalize_id(string)`` then
``get_metadata(pid=...)``: ``get_crossref``, ``get_datacite``, ``get_json_feed_item``, ...), while ``Metadata(dict)``
reads the mapping it is given: only a string argument blocks (the ``text`` test of
:class:`~faultlib.detect.serving.blocking.entries.BlocksWhen`). The writers' ``push_*`` functions deposit records:
``push_crossref_xml``/``push_crossref_xml_list`` POST the XML to Crossref's deposit servlet
(``commonmeta/writers/crossref_xml_writer.py``: ``requests.post(post_url, data=multipart_data, ...)``),
``push_inveniordm``/``push_inveniordm_list`` search, create, update and publish InvenioRDM records through its REST
API; the readers' ``get_*`` and ``doi_utils.get_doi_ra``/``get_crossref_member`` are single GETs (held-out wave 65:
a Quart service resolving citations and depositing DOIs from its async handlers).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

H = "blocking_http"
SOURCE = "https://github.com/front-matter/commonmeta-py"
METADATA = (f"{SOURCE} (commonmeta/metadata.py: Metadata(string) with a DOI/URL fetches the record from the "
            "registration agency's API over requests/httpx; a dict is read in memory)")
WRITERS = (f"{SOURCE} (commonmeta/writers: push_crossref_xml* POST to https://doi.crossref.org/servlet/deposit; "
           "push_inveniordm* create, update and publish records over the InvenioRDM REST API)")
READERS = f"{SOURCE} (commonmeta/readers/*_reader.py get_* and doi_utils: one GET of the agency's API each)"

_METADATA = ("commonmeta.Metadata", "commonmeta.metadata.Metadata")
_WRITERS = {"crossref_xml_writer": ("push_crossref_xml", "push_crossref_xml_list"),
            "inveniordm_writer": ("push_inveniordm", "push_inveniordm_list")}
_READERS = {"crossref_reader": "get_crossref", "crossref_xml_reader": "get_crossref_xml",
            "datacite_reader": "get_datacite", "json_feed_reader": "get_json_feed_item",
            "inveniordm_reader": "get_inveniordm", "openalex_reader": "get_openalex",
            "schema_org_reader": "get_schema_org", "codemeta_reader": "get_codemeta", "cff_reader": "get_cff"}

COMMONMETA = Vocabulary(
    calls={
        **{name: (H, METADATA) for name in _METADATA},
        **{f"commonmeta.writers.{m}.{f}": (H, WRITERS) for m, fs in _WRITERS.items() for f in fs},
        **{f"commonmeta.readers.{m}.{f}": (H, READERS) for m, f in _READERS.items()},
        **{f"commonmeta.{m}.{f}": (H, READERS) for m, f in _READERS.items()},  # `from commonmeta import crossref_reader`
        **{f"commonmeta.{p}get_doi_ra": (H, READERS) for p in ("", "doi_utils.")},
        "commonmeta.doi_utils.get_crossref_member": (H, READERS),
    },
    when={name: BlocksWhen("string", 0, "text") for name in _METADATA},
)
