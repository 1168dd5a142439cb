"""Cloud SDK calls beyond boto3 and the Google API clients: Azure Cosmos DB, Azure identity tokens and the Azure
Speech SDK, the fsspec file systems of object stores (s3fs, gcsfs, adlfs), ``fsspec.open``, ``smart_open`` and Baidu
AI's SDK (``baidu-aip``: content censoring, speech, OCR, NLP clients).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; boto3,
Google auth and API clients are in :mod:`~faultlib.detect.serving.blocking.libraries.cloud`, Azure Blob and Google
Cloud Storage in :mod:`~faultlib.detect.serving.blocking.sdks`). Each entry names the documentation of the call.
The async twins stay silent: ``azure.cosmos.aio``, ``azure.identity.aio`` (an ``aio`` name part is never owned),
and an fsspec file system's ``_``-prefixed coroutines (``await fs._ls(...)``).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
COSMOS = ("https://learn.microsoft.com/en-us/python/api/overview/azure/cosmos-readme (the sync client's item and "
          "container operations are requests; azure.cosmos.aio is the async client)")
_COSMOS_OPS = ("read_item", "query_items", "create_item", "upsert_item", "replace_item", "delete_item", "patch_item",
               "read_all_items", "query_items_change_feed", "execute_item_batch", "delete_all_items_by_partition_key",
               "create_database", "create_database_if_not_exists", "delete_database", "list_databases",
               "query_databases", "create_container", "create_container_if_not_exists", "delete_container",
               "list_containers", "query_containers", "replace_container", "read", "get_throughput",
               "replace_throughput")
_COSMOS = ("azure.cosmos.CosmosClient", "azure.cosmos.DatabaseProxy", "azure.cosmos.ContainerProxy")
AZURE_IDENTITY = ("https://learn.microsoft.com/en-us/python/api/azure-identity/azure.identity.defaultazurecredential"
                  "#azure-identity-defaultazurecredential-get-token (get_token requests a token from Microsoft Entra "
                  "ID, or runs the Azure CLI; azure.identity.aio holds the async credentials)")
FSSPEC = ("https://filesystem-spec.readthedocs.io/en/latest/async.html (an async implementation's public methods "
          "are sync wrappers that run the coroutine on fsspec's I/O thread and wait for it) and "
          "https://s3fs.readthedocs.io/en/latest/ , https://gcsfs.readthedocs.io/en/latest/")
_FS_OPS = ("ls", "info", "exists", "isfile", "isdir", "cat", "cat_file", "get", "get_file", "put", "put_file",
           "open", "rm", "rm_file", "find", "glob", "du", "copy", "cp", "mv", "upload", "download", "read_text",
           "write_text", "read_bytes", "pipe", "pipe_file", "touch", "mkdir", "makedirs", "walk", "head", "tail",
           "size", "checksum", "modified", "created", "invalidate_cache_and_ls")
AZURE_SPEECH = ("https://learn.microsoft.com/en-us/python/api/azure-cognitiveservices-speech/azure.cognitiveservices."
                "speech.speechsynthesizer (speak_text and recognize_once wait for the service's result; the *_async "
                "methods return a ResultFuture at once, whose get() waits)")
_SPEECH = tuple(f"azure.cognitiveservices.speech.{c}" for c in (
    "SpeechSynthesizer", "SpeechRecognizer", "translation.TranslationRecognizer", "TranslationRecognizer"))
_SPEECH_CALLS = ("speak_text", "speak_ssml", "recognize_once", "start_continuous_recognition",
                 "stop_continuous_recognition")
BAIDU_AIP = ("https://ai.baidu.com/ai-doc/ANTIPORN/Nk3h6xbb2 (the baidu-aip clients -- AipContentCensor, AipSpeech, "
             "AipOcr, AipNlp... -- send every API call as a synchronous requests POST, fetching the access token "
             "first when it has expired)")
_AIP_SETTERS = frozenset({"setConnectionTimeoutInMillis", "setSocketTimeoutInMillis", "setProxies"})
CLOUD_SDKS = Vocabulary(
    calls={
        "smart_open.open": (H, "https://github.com/piskvorky/smart_open#how-do-i-use-it (opens a local file or a "
                               "remote object: S3, GCS, Azure, HTTP; reading streams it in the calling thread)"),
        "smart_open.smart_open": (H, "https://github.com/piskvorky/smart_open#how-do-i-use-it"),
        **{f"fsspec.{f}": ("blocking_file_io", "https://filesystem-spec.readthedocs.io/en/latest/api.html#fsspec.open "
                                               "(opens a local or remote file: `with fsspec.open(path)` opens it, "
                                               "reads and writes go to the disk or the store)")
           for f in ("open", "open_files")},
    },
    families=(
        Family(("azure.cosmos",), {m: H for m in _COSMOS_OPS}, COSMOS, package=True, functions=False),
        Family(("azure.identity",), {"get_token": H, "get_token_info": H}, AZURE_IDENTITY, package=True,
               functions=False),
        Family(_SPEECH, {m: H for m in _SPEECH_CALLS}, AZURE_SPEECH),
        Family(("aip",), {"*": H}, BAIDU_AIP, package=True, functions=False, except_=_AIP_SETTERS),
        Family(("azure.cognitiveservices.speech.ResultFuture",), {"get": "blocking_task"}, AZURE_SPEECH),
        *(Family((f"{pkg}.",), {m: H for m in _FS_OPS}, FSSPEC, prefix=True, suffix="FileSystem")
          for pkg in ("s3fs", "gcsfs", "adlfs")),
    ),
    returns={
        **{f"{c}.{m}_async": "azure.cognitiveservices.speech.ResultFuture" for c in _SPEECH for m in _SPEECH_CALLS},
        "azure.cosmos.CosmosClient.from_connection_string": "azure.cosmos.CosmosClient",
        **{f"{c}.get_database_client": "azure.cosmos.DatabaseProxy" for c in _COSMOS[:1]},
        **{f"azure.cosmos.CosmosClient.{m}": "azure.cosmos.DatabaseProxy" for m in (
            "create_database", "create_database_if_not_exists")},
        **{f"azure.cosmos.DatabaseProxy.{m}": "azure.cosmos.ContainerProxy" for m in (
            "get_container_client", "create_container", "create_container_if_not_exists")},
    },
)
