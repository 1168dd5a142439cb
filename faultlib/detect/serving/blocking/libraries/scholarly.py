"""Scholarly-metadata libraries that look identifiers up and deposit records over HTTP: commonmeta-py, and the Zotero
API client pyzotero.

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

pyzotero (https://pyzotero.readthedocs.io/en/latest/) is a synchronous client of the Zotero web API, or of the local
Zotero app's API with ``local=True``: its read methods (``items``, ``top``, ``collections``, ``groups``, ``item``,
``file``...) send one GET each through the ``httpx.Client`` the ``Zotero`` object holds (1.6: ``pyzotero/zotero.py``,
the ``@retrieve`` methods; 1.7 and later: ``pyzotero/_client.py``), the ``everything``/``all_*`` helpers follow every
page, and the write methods POST, PATCH or DELETE. Only the methods it has are listed: a family owning the class
answers for it, so a method the class lacks (``zot.library()``, an ``AttributeError`` before any request; held-out wave
64) is no request, where the class-name or evidence guesses would have taken any method for one
(:mod:`~faultlib.detect.serving.blocking.absent_methods`). Left out: ``add_parameters``, ``default_headers``, the
saved-search ``show_*`` lists (local state) and the iterators ``makeiter``/``iterfollow`` (their pages are fetched
where they are iterated).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

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

ZOTERO_SOURCE = ("https://pyzotero.readthedocs.io/en/latest/ (Zotero's read methods GET the web or local API through "
                 "the httpx.Client it holds; the write methods POST/PATCH/DELETE; the all_*/everything helpers follow "
                 "every page)")
_ZOTERO = ("pyzotero.zotero.Zotero", "pyzotero.Zotero", "pyzotero._client.Zotero")
_ZOTERO_REQUESTS = (
    "items", "top", "trash", "deleted", "publications", "searches", "settings", "key_info", "item", "file", "dump",
    "children", "collection", "collections", "collections_top", "collections_sub", "collection_items",
    "collection_items_top", "collection_tags", "groups", "tags", "item_tags", "fulltext_item", "set_fulltext",
    "new_fulltext", "item_versions", "collection_versions", "last_modified_version", "num_items", "count_items",
    "num_collectionitems", "all_top", "all_collections", "everything", "follow", "get_subset", "item_template",
    "item_types", "item_fields", "item_type_fields", "item_creator_types", "creator_fields", "check_items",
    "create_items", "create_collection", "create_collections", "update_item", "update_items", "update_collection",
    "update_collections", "addto_collection", "deletefrom_collection", "delete_item", "delete_collection",
    "delete_tags", "add_tags", "attachment_simple", "attachment_both", "upload_attachments", "saved_search",
    "delete_saved_search")

ZOTERO = Vocabulary(families=(Family(_ZOTERO, {m: H for m in _ZOTERO_REQUESTS}, ZOTERO_SOURCE),))
