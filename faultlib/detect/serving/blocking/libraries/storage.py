"""Object-storage clients' local factories: Azure Blob Storage's sub-clients.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
blocking methods of ``azure.storage.blob`` are in :mod:`faultlib.detect.serving.blocking.sdks`). A
``BlobServiceClient``'s ``get_container_client``/``get_blob_client`` and a ``ContainerClient``'s ``get_blob_client``
only build the client of a container or blob from the account URL and credential: no request is sent until one of
its operations (``upload_blob``, ``download_blob``...) is called. Typing them lets those operations be found.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

AZURE_BLOB = ("https://learn.microsoft.com/en-us/python/api/azure-storage-blob/azure.storage.blob.blobserviceclient"
              "#azure-storage-blob-blobserviceclient-get-container-client (get_container_client/get_blob_client "
              "return a client; the container or blob need not exist yet)")

_SERVICE = ("azure.storage.blob.BlobServiceClient", "azure.storage.blob._blob_service_client.BlobServiceClient")
_CONTAINER = "azure.storage.blob.ContainerClient"
_BLOB = "azure.storage.blob.BlobClient"

STORAGE = Vocabulary(
    returns={
        **{f"{s}.get_container_client": _CONTAINER for s in _SERVICE},
        **{f"{s}.get_blob_client": _BLOB for s in (*_SERVICE, _CONTAINER)},
    },
)
"""Source of every entry: :data:`AZURE_BLOB`."""
