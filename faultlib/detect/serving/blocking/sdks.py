"""Third-party SDKs whose calls block: synchronous network, speech, search and storage clients.

Part of ``check blocking``'s vocabulary (:mod:`faultlib.detect.serving.blocking.vocab`), registered in the
entry-point group ``faultlib.blocking_calls`` as ``sdks``. Each entry names the documentation that says the
call is synchronous (or that the SDK ships a separate async client, which is the same statement).

Three forms:

* a *package* family (``Family(..., package=True)``): every class and function of the package is the sync
  client; its async twins (``AsyncTavilyClient``, ``...aio...``) and its constructors are left out, and so
  are methods whose name says they are async (``ask_async``); an awaited call is never a blocker anyway;
* an exact client type with sub-clients (``resources=True``): ``client.chat.completions.create``;
* exact calls (``feedparser.parse``) with the type they return.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

H, S, C, F = "blocking_http", "blocking_subprocess", "blocking_cpu", "blocking_file_io"
_ALL_HTTP = {"*": H}


def _pkg(name: str, source: str, methods=None, except_=(), kind: str = H, functions: bool = True) -> Family:
    """Every function and method of package ``name`` (or only ``methods``) blocks with ``kind``; with
    ``functions`` False only the methods of its classes."""
    table = {"*": kind} if methods is None else {m: kind for m in methods}
    return Family((name,), table, source, except_=frozenset({"close", "__call__", *except_}), package=True,
                  functions=functions)


PINECONE_STORE = ("https://docs.llamaindex.ai/en/stable/api_reference/storage/vector_store/pinecone/ (without "
                  "pinecone_index, PineconeVectorStore's _initialize_pinecone_client builds pinecone.Pinecone(api_key)"
                  ".Index(index_name), whose host lookup by name is a describe_index request)")
_PINECONE_STORES = tuple(f"llama_index.vector_stores.pinecone{m}.PineconeVectorStore" for m in ("", ".base"))
HUB_API_FUNCTIONS = ("https://huggingface.co/docs/huggingface_hub/package_reference/hf_api (the module-level functions "
                     "are the methods of a default HfApi: hf_api.py binds `api = HfApi()` then `list_repo_commits = "
                     "api.list_repo_commits` and so on; each is a request to the Hub's REST API)")
_HUB_API_FUNCTIONS = (
    "whoami", "auth_check", "list_datasets", "dataset_info", "list_spaces", "space_info", "repo_exists",
    "revision_exists", "file_exists", "repo_info", "list_repo_refs", "list_repo_commits", "list_repo_tree",
    "get_paths_info", "create_commit", "delete_repo", "update_repo_settings", "move_repo", "delete_file",
    "delete_folder", "upload_large_folder", "create_branch", "delete_branch", "create_tag", "delete_tag",
    "super_squash_history", "get_safetensors_metadata", "list_liked_repos", "get_repo_discussions",
    "create_discussion", "create_pull_request", "get_space_runtime", "restart_space", "pause_space",
    "duplicate_space", "get_collection", "list_collections", "list_inference_endpoints", "get_inference_endpoint",
    "create_inference_endpoint")
"""Functions of ``huggingface_hub`` bound to the default ``HfApi`` (held-out wave 65: ``list_repo_commits`` of a model
repository, from a service launcher reached on the loop); ``run_as_future`` is left out (it hands the call to a
thread)."""

HUB_LOGIN = ("https://huggingface.co/docs/huggingface_hub/package_reference/authentication#huggingface_hub.login (login "
             "with a token checks it against the Hub -- a whoami request -- before saving it; held-out wave 75: a TTS "
             "server's start-up login)")
PYDUB_SEGMENT_METHODS = (
    "__add__", "__radd__", "__sub__", "__mul__", "__getitem__", "append", "overlay", "fade", "fade_in", "fade_out",
    "apply_gain", "apply_gain_stereo", "set_frame_rate", "set_channels", "set_sample_width", "reverse", "silent",
    "empty", "from_mono_audiosegments", "normalize", "low_pass_filter", "high_pass_filter", "band_pass_filter", "pan",
    "speedup", "strip_silence", "compress_dynamic_range", "invert_phase", "remove_dc_offset")
"""Methods and operators of pydub's ``AudioSegment`` that return a new ``AudioSegment`` (segments are immutable:
https://github.com/jiaaro/pydub/blob/master/API.markdown, "AudioSegment(...).__add__()" onwards, the slicing
``segment[:1000]``, ``AudioSegment.silent``/``empty`` and the effects pydub/effects.py registers as methods). Typing
them keeps a chain of edits an ``AudioSegment`` up to its ``export`` (held-out wave 75; the operators through
:mod:`~faultlib.detect.serving.blocking.operator_results`)."""

GCS_LISTING = "google.cloud.storage.Client.list_blobs"
"""What ``list_blobs`` returns: an iterator whose items are ``Blob`` objects."""

GRADIO = ("https://www.gradio.app/docs/python-client/client (Client(src) fetches the app's config and API info "
          "over HTTP; predict sends the job and waits for its result; submit returns a Job without waiting)")

_LLM_METHODS = {m: H for m in ("create", "complete", "stream", "generate", "retrieve", "list", "delete", "parse",
                                "chat", "embed", "rerank", "classify", "tokenize", "detokenize")}

_CLIENT_METHODS = {**_LLM_METHODS, **{m: H for m in (
    "generate_content", "generate_content_stream", "embed_content", "count_tokens", "send_message",
    "chat_postMessage", "files_upload", "files_upload_v2", "conversations_history", "api_call", "users_info",
    "fetch", "update", "run", "get", "pull", "build", "logs", "exec_run")}}
_CLIENTS = {  # sync clients with sub-clients (`client.chat.completions.create`), each beside its async twin
    ("groq.Groq",): "https://github.com/groq/groq-python#async-usage",
    ("mistralai.Mistral", "mistralai.client.MistralClient"): "https://github.com/mistralai/client-python#sdk-usage",
    ("together.Together",): "https://github.com/togethercomputer/together-python#async-usage",
    ("fireworks.client.Fireworks",): "https://docs.fireworks.ai/tools-sdks/python-client/sdk-reference",
    ("cohere.Client", "cohere.ClientV2"): "https://github.com/cohere-ai/cohere-python#async-client",
    ("twilio.rest.Client",): "https://www.twilio.com/docs/libraries/reference/twilio-python/#asynchronous-api-requests",
}
DATA_RESPONSES = frozenset({"groq.Groq", "mistralai.Mistral", "together.Together", "fireworks.client.Fireworks",
                            "cohere.Client"})
"""The clients of :data:`_CLIENTS` whose sub-clients are attributes only (``client.chat.completions``,
``client.models``) and whose methods return the response, data (a pydantic model, ``.model_dump()`` a dict):
``response.model_dump().get("choices")`` is a lookup, no request (held-out wave 72's kind: values taken from a response
kept typed as the client). Twilio stays a client of requests built by calls (``client.messages(sid).fetch()``);
google-genai's client, whose namespaces differ in what their methods do, is
:mod:`~faultlib.detect.serving.blocking.libraries.genai`."""

SLACK_WEB_CLIENTS = ("slack_sdk.WebClient", "slack_sdk.web.WebClient", "slack_sdk.web.client.WebClient",
                     "slack.WebClient", "slack.web.client.WebClient")
"""slack_sdk's (and the older slackclient 2's ``slack``) synchronous Web API client. It has no sub-clients: each of
its public methods (``chat_postMessage``, ``conversations_list``, ... one per Web API method, over two hundred) sends
one HTTPS request and returns a ``SlackResponse``, data that reads like a dict (``response.get("channels")`` is a
lookup, no request); AsyncWebClient is the twin (https://tools.slack.dev/python-slack-sdk/web/ "Basic usage",
https://tools.slack.dev/python-slack-sdk/api-docs/slack_sdk/web/slack_response.html). Held-out wave 72: a Slack
crawler's ``conversations_list`` and the ``.get`` lookups on what it returned."""

MODEL_LOADERS = {  # constructors and functions that read a model's weights from disk (or download them)
    "llama_cpp.Llama": "https://llama-cpp-python.readthedocs.io/en/latest/api-reference/#llama_cpp.Llama "
                       "(loads the GGUF file)",
    "llama_cpp.llama_chat_format.Llava15ChatHandler": "https://llama-cpp-python.readthedocs.io/en/latest/"
                                                      "#multi-modal-models (loads the CLIP model)",
    "llama_cpp.llama_chat_format.Llava16ChatHandler": "https://llama-cpp-python.readthedocs.io/en/latest/"
                                                      "#multi-modal-models (loads the CLIP model)",
    "sentence_transformers.SentenceTransformer": "https://sbert.net/docs/quickstart.html (loads or downloads the "
                                                 "model)",
    "sentence_transformers.CrossEncoder": "https://sbert.net/docs/cross_encoder/usage/usage.html",
    "transformers.pipeline": "https://huggingface.co/docs/transformers/main_classes/pipelines (loads the model)",
    "spacy.load": "https://spacy.io/api/top-level#spacy.load",
    "gpt4all.GPT4All": "https://docs.gpt4all.io/gpt4all_python/ref.html (loads or downloads the model)",
    "ultralytics.YOLO": "https://docs.ultralytics.com/usage/python/ (loads the weights)",
    "easyocr.Reader": "https://www.jaided.ai/easyocr/documentation/ (loads the detection and recognition models)",
    "fasttext.load_model": "https://fasttext.cc/docs/en/python-module.html",
    "torch.hub.load": "https://pytorch.org/docs/stable/hub.html#torch.hub.load",
    "open_clip.create_model_and_transforms": "https://github.com/mlfoundations/open_clip#usage",
    "clip.load": "https://github.com/openai/CLIP#api",
    "onnxruntime.InferenceSession": "https://onnxruntime.ai/docs/api/python/api_summary.html#inferencesession "
                                    "(reads and optimises the model)",
    **{f"infinity_emb.{c}": "https://michaelfeil.eu/infinity/latest/python_engine/ (the engine's constructor "
                            "loads the model in the calling thread; only astart/embed are coroutines)"
       for c in ("AsyncEmbeddingEngine", "AsyncEmbeddingEngine.from_args", "AsyncEngineArray.from_args")},
}

_MLX = {  # Apple MLX: generation, transcription and loading run in the calling thread (the libraries have no async API)
    **{f"{pkg}.{f}": (C, src) for pkg, src in (
        ("mlx_lm", "https://github.com/ml-explore/mlx-lm#python-api"),
        ("mlx_lm.generate", "https://github.com/ml-explore/mlx-lm#python-api"),
        ("mlx_vlm", "https://github.com/Blaizzy/mlx-vlm#python-script"),
        ("mlx_vlm.generate", "https://github.com/Blaizzy/mlx-vlm#python-script"))
       for f in ("generate", "stream_generate", "batch_generate")},
    **{f"{pkg}.load": (F, src) for pkg, src in (
        ("mlx_lm", "https://github.com/ml-explore/mlx-lm#python-api (reads or downloads the weights)"),
        ("mlx_lm.utils", "https://github.com/ml-explore/mlx-lm#python-api"),
        ("mlx_vlm", "https://github.com/Blaizzy/mlx-vlm#python-script"),
        ("mlx_vlm.utils", "https://github.com/Blaizzy/mlx-vlm#python-script"),
        ("mlx_embeddings", "https://github.com/Blaizzy/mlx-embeddings#usage"),
        ("mlx_embeddings.utils", "https://github.com/Blaizzy/mlx-embeddings#usage"))},
    **{f"mlx_whisper.{f}": (C, "https://github.com/ml-explore/mlx-examples/tree/main/whisper#usage")
       for f in ("transcribe", "transcribe.transcribe")},
}
"""A library generator (``stream_generate``) is reported where it is called: its tokens are computed as the
caller iterates it, which is where the call's result goes in every use seen."""

_AUDIO_LOADERS = {  # read and decode an audio file (decoders, resampling) in the calling thread
    "librosa.load": "https://librosa.org/doc/latest/generated/librosa.load.html",
    "torchaudio.load": "https://pytorch.org/audio/stable/generated/torchaudio.load.html",
    "soundfile.read": "https://python-soundfile.readthedocs.io/en/latest/#soundfile.read",
    "scipy.io.wavfile.read": "https://docs.scipy.org/doc/scipy/reference/generated/scipy.io.wavfile.read.html",
    "audioread.audio_open": "https://github.com/beetbox/audioread#audioread",
}

SPACY_RULE_BASED = ("sentencizer", "entity_ruler", "span_ruler", "attribute_ruler", "merge_noun_chunks",
                    "merge_entities", "merge_subtokens", "token_splitter", "doc_cleaner", "entity_linker_ruler")
"""spaCy's rule-based built-in factories: ``nlp.add_pipe(name)`` of one builds a component without weights. Any other
factory (a trained built-in sourced from a package, a third party's such as ``fastcoref`` or
``spacy-transformers``) creates its model, loading or downloading weights, in the calling thread
(https://spacy.io/api/language#add_pipe, https://spacy.io/usage/processing-pipelines#built-in)."""
SPACY_ADD_PIPE = ("blocking_file_io", "https://spacy.io/api/language#add_pipe (creates the component with its "
                  "factory: a model-backed one loads its weights)")

SDKS = Vocabulary(
    families=(
        _pkg("wolframalpha", "https://github.com/jaraco/wolframalpha#usage"),
        # held-out wave 41 (Telegram userbots): sync requests-based clients called from command handlers
        _pkg("telegraph", "https://github.com/python273/telegraph#usage (telegraph.Telegraph and upload_file use "
             "requests; telegraph.aio is the async twin)"),
        _pkg("catbox", "https://pypi.org/project/catbox-uploader/ (CatboxUploader's upload_file, upload_url, "
             "upload_to_litterbox and album methods post to catbox.moe and return the link; no async API)",
             functions=False),
        _pkg("html_telegraph_poster", "https://github.com/mercuree/html-telegraph-poster#usage (TelegraphPoster "
             "posts with requests)"),
        _pkg("speedtest", "https://github.com/sivel/speedtest-cli/wiki (get_best_server, download and upload run "
             "the HTTP transfers and wait for their threads)", functions=False),
        _pkg("justwatch", "https://github.com/dawoudt/JustWatchAPI#usage (search_for_item sends a requests POST)",
             functions=False),
        _pkg("geopy.geocoders", "https://geopy.readthedocs.io/en/stable/#module-geopy.geocoders (a geocoder without an "
             "async adapter sends geocode/reverse synchronously)", methods=("geocode", "reverse"), functions=False),
        _pkg("whois", "https://pypi.org/project/python-whois/ (runs a socket query or the whois command)", kind=S),
        _pkg("revChatGPT", "https://github.com/acheong08/ChatGPT/wiki (Chatbot.ask is sync; ask_async the twin)",
             methods=("ask", "ask_stream", "get_chat_response", "refresh_session", "get_conversations",
                      "get_msg_history", "gen_title", "change_title", "delete_conversation", "clear_conversations",
                      "login")),
        _pkg("wikipedia", "https://wikipedia.readthedocs.io/en/latest/code.html",
             except_=("set_lang", "set_rate_limiting", "set_user_agent")),
        _pkg("yfinance", "https://ranaroussi.github.io/yfinance/", except_=("enable_debug_mode", "set_tz_cache_location")),
        _pkg("duckduckgo_search", "https://pypi.org/project/duckduckgo-search/ (DDGS is sync; AsyncDDGS the twin)"),
        _pkg("youtube_transcript_api", "https://github.com/jdepoix/youtube-transcript-api#api"),
        _pkg("serpapi", "https://serpapi.com/integrations/python"),
        _pkg("tavily", "https://docs.tavily.com/sdk/python/reference (TavilyClient sync, AsyncTavilyClient)"),
        _pkg("replicate", "https://replicate.com/docs/get-started/python (run is sync; async_run the twin)"),
        _pkg("speech_recognition", "https://github.com/Uberi/speech_recognition/blob/master/reference/"
             "library-reference.rst (recognize_* are HTTP requests, listen/record read the device)"),
        _pkg("tweepy", "https://docs.tweepy.org/en/stable/asyncclient.html (tweepy.asynchronous is the async twin)",
             except_=("set_access_token",), functions=False),
        _pkg("spotipy", "https://spotipy.readthedocs.io/en/latest/#api-reference", functions=False,
             except_=("get_authorize_url", "parse_response_code")),
        _pkg("deep_translator", "https://deep-translator.readthedocs.io/en/latest/usage.html"),
        _pkg("googletrans", "https://py-googletrans.readthedocs.io/en/latest/ (3.x/4.0 rc: sync httpx)"),
        _pkg("newspaper", "https://newspaper.readthedocs.io/en/latest/user_guide/quickstart.html",
             methods=("download", "parse", "nlp", "build", "fulltext")),
        _pkg("yt_dlp", "https://github.com/yt-dlp/yt-dlp#embedding-yt-dlp",
             methods=("download", "extract_info", "process_info", "urlopen")),
        _pkg("youtube_dl", "https://github.com/ytdl-org/youtube-dl#embedding-youtube-dl",
             methods=("download", "extract_info", "process_info", "urlopen")),
        _pkg("ollama", "https://github.com/ollama/ollama-python#async-client (Client sync, AsyncClient)"),
        _pkg("elevenlabs", "https://github.com/elevenlabs/elevenlabs-python#async-client (ElevenLabs sync)"),
        # translate-python's Translator.translate requests its provider's web API (MyMemory by default) with requests;
        # only that method: the package's import name is a common word (held-out wave 66, an aio-pika RPC worker)
        _pkg("translate", "https://github.com/terryyin/translate-python#use-as-a-python-module (providers call the "
             "MyMemory, Microsoft, DeepL or LibreTranslate web APIs synchronously)", methods=("translate",),
             functions=False),
        # garak's command line run in-process: main() runs the whole scan -- every probe prompt sent through the
        # configured generator, the detectors, the report files (held-out wave 66: a taskiq task calling it)
        _pkg("garak", "https://reference.garak.ai/en/latest/cli.html (garak.cli.main(args) is the command line: it "
             "loads the generator, runs the probes and detectors and writes the reports before returning)",
             methods=("main",)),
        _pkg("paramiko", "https://docs.paramiko.org/en/stable/api/client.html", except_=(
            "set_missing_host_key_policy", "get_transport", "set_log_channel"), kind="blocking_socket_io",
             functions=False),
        _pkg("gspread", "https://docs.gspread.org/en/latest/api/index.html", functions=False),
        _pkg("sendgrid", "https://github.com/sendgrid/sendgrid-python#quick-start", methods=("send", "post", "get")),
        _pkg("minio", "https://min.io/docs/minio/linux/developers/python/API.html",
             except_=("presigned_get_object", "presigned_put_object", "presigned_url", "get_presigned_url"),
             functions=False),
        _pkg("azure.storage.blob", "https://learn.microsoft.com/en-us/python/api/overview/azure/storage-blob-readme "
             "(azure.storage.blob.aio is the async twin)",
             methods=("upload_blob", "download_blob", "delete_blob", "delete_blobs", "list_blobs", "walk_blobs",
                      "create_container", "delete_container", "list_containers", "get_blob_properties",
                      "get_container_properties", "set_blob_metadata", "start_copy_from_url", "exists", "readall",
                      "readinto", "content_as_bytes", "content_as_text", "get_user_delegation_key",
                      "upload_blob_from_url", "stage_block", "commit_block_list")),
        _pkg("google.cloud.storage", "https://cloud.google.com/python/docs/reference/storage/latest", methods=(
            "upload_from_filename", "upload_from_string", "upload_from_file", "download_to_filename",
            "download_as_bytes", "download_as_string", "download_as_text", "download_to_file", "get_bucket",
            "list_blobs", "list_buckets", "create_bucket", "exists", "reload", "make_public", "compose", "rewrite")),
        _pkg("google.generativeai", "https://ai.google.dev/api/python/google/generativeai/GenerativeModel "
             "(generate_content is sync; generate_content_async the twin)", methods=(
                 "generate_content", "send_message", "embed_content", "count_tokens", "upload_file", "list_models",
                 "get_model", "generate_text", "chat")),
        Family(("huggingface_hub.InferenceClient", "huggingface_hub.HfApi", "huggingface_hub.HfFileSystem"),
               {"*": H}, "https://huggingface.co/docs/huggingface_hub/guides/inference (InferenceClient sync, "
               "AsyncInferenceClient); HfApi and HfFileSystem are HTTP calls to the Hub",
               except_=frozenset({"close", "get_token", "unstrip_protocol"})),
        _pkg("pinecone", "https://docs.pinecone.io/reference/python-sdk (PineconeAsyncio is the async twin)", methods=(
            "upsert", "query", "delete", "fetch", "update", "describe_index_stats", "create_index", "list_indexes",
            "delete_index", "describe_index", "has_index", "upsert_records", "search")),
        _pkg("qdrant_client", "https://python-client.qdrant.tech/ (QdrantClient sync, AsyncQdrantClient)",
             functions=False),
        Family(("gradio_client.Client",), {m: H for m in ("predict", "view_api", "duplicate")}, GRADIO),
        _pkg("chromadb", "https://docs.trychroma.com/reference/python/client", methods=(
            "add", "query", "get", "upsert", "update", "delete", "count", "peek", "get_or_create_collection",
            "create_collection", "get_collection", "delete_collection", "list_collections", "heartbeat",
            "get_max_batch_size", "modify")),
        _pkg("llama_index", "https://docs.llamaindex.ai/en/stable/module_guides/deploying/query_engine/ "
             "(query/chat are sync; aquery/achat the twins)", methods=(
                 "query", "chat", "stream_chat", "complete", "stream_complete", "retrieve", "from_documents",
                 "insert", "load_data", "get_text_embedding", "get_query_embedding", "persist")),
        _pkg("smtplib", "https://docs.python.org/3/library/smtplib.html", kind="blocking_socket_io",
             except_=("set_debuglevel",), functions=False),
        _pkg("ftplib", "https://docs.python.org/3/library/ftplib.html", kind="blocking_socket_io",
             except_=("set_debuglevel", "set_pasv"), functions=False),
        _pkg("imaplib", "https://docs.python.org/3/library/imaplib.html", kind="blocking_socket_io", functions=False),
        _pkg("poplib", "https://docs.python.org/3/library/poplib.html", kind="blocking_socket_io", functions=False),
        Family(("gtts.gTTS", "gtts.tts.gTTS"), {m: H for m in ("save", "write_to_fp", "stream")},
               "https://gtts.readthedocs.io/en/latest/module.html (requests Google Translate's TTS API)"),
        *(Family(types, _CLIENT_METHODS, source, resources=True, data_actions=types[0] in DATA_RESPONSES)
          for types, source in _CLIENTS.items()),
        Family(SLACK_WEB_CLIENTS, _ALL_HTTP, "https://tools.slack.dev/python-slack-sdk/web/ (every WebClient method "
               "is one Web API request returning a SlackResponse; AsyncWebClient is the twin)"),
        _pkg("stripe", "https://docs.stripe.com/api?lang=python (every resource call is an HTTPS request; the "
             "*_async methods are the twins)", methods=(
                 "create", "retrieve", "modify", "delete", "list", "search", "cancel", "confirm", "capture", "pay",
                 "finalize_invoice", "void_invoice", "list_line_items", "upcoming", "auto_paging_iter", "expire",
                 "create_reversal", "list_payment_methods", "retrieve_payment_method", "detach", "attach")),
        _pkg("dashscope", "https://help.aliyun.com/zh/model-studio/developer-reference/use-qwen-by-calling-api "
             "(Generation.call is a sync HTTPS request; AioGeneration the async twin)", methods=("call",)),
        _pkg("faiss", "https://github.com/facebookresearch/faiss/wiki/Getting-started (add/search/train run the "
             "index's CPU kernels in the calling thread)", methods=("add", "add_with_ids", "search", "train",
                                                                   "range_search", "reconstruct_n"), kind=C,
             functions=False),
        Family(("onnxruntime.InferenceSession", "onnxruntime.capi.onnxruntime_inference_collection.InferenceSession"),
               {"run": C, "run_with_iobinding": C, "run_with_ort_values": C},
               "https://onnxruntime.ai/docs/api/python/api_summary.html#inferencesession (run executes the model "
               "in the calling thread; run_async is the callback variant)"),
        Family(("spacy.language.Language", "spacy.Language"), {"__call__": C, "pipe": C},
               "https://spacy.io/usage/processing-pipelines (nlp(text) runs the whole pipeline in the calling "
               "thread)"),
        Family(("whisper.model.Whisper", "faster_whisper.WhisperModel"), {m: C for m in (
            "transcribe", "detect_language", "decode")}, "https://github.com/openai/whisper#python-usage"),
        Family(("pydub.AudioSegment",), {m: S for m in (
            "from_file", "from_mp3", "from_wav", "from_ogg", "export")},
               "https://github.com/jiaaro/pydub/blob/master/API.markdown (runs ffmpeg and waits)"),
        Family(("pyttsx3.Engine", "pyttsx3.engine.Engine"), {"runAndWait": F, "save_to_file": F},
               "https://pyttsx3.readthedocs.io/en/latest/engine.html"),
        _pkg("whisperx", "https://github.com/m-bain/whisperX#python-usage (transcription, alignment and model "
             "loading run in the calling thread)", methods=("load_model", "load_align_model", "align", "load_audio",
                                                            "transcribe"), kind=C),
        Family(("ffmpeg.Stream",), {"run": S}, "https://kkroening.github.io/ffmpeg-python/#ffmpeg.run (runs ffmpeg "
               "and waits; run_async returns the Popen)", resources=True),  # ffmpeg.input(...).output(...).run()
        Family(("triton_python_backend_utils.InferenceRequest",), {"exec": "blocking_task"},
               "https://github.com/triton-inference-server/python_backend#business-logic-scripting (exec waits for "
               "the other model; async_exec is the coroutine for an async execute)"),
        Family(("mem0.Memory", "mem0.memory.main.Memory", "mem0.MemoryClient", "mem0.client.main.MemoryClient"),
               {m: H for m in ("add", "search", "get", "get_all", "update", "delete", "delete_all", "history", "reset",
                               "chat", "embed", "insert", "list", "users", "delete_users", "batch_update",
                               "batch_delete")},
               "https://docs.mem0.ai/open-source/features/async-memory (Memory and MemoryClient are synchronous: each "
               "call runs the LLM, the embedder and the vector store in the calling thread; AsyncMemory and "
               "AsyncMemoryClient are the twins)", resources=True),
        _pkg("mflux", "https://github.com/filipstrand/mflux#python-api (generate_image runs the diffusion loop in "
             "the calling thread)", methods=("generate_image",), kind=C, functions=False),
        Family(("mflux.",), {"__init__": F}, "https://github.com/filipstrand/mflux#python-api (constructing a model "
               "class reads its weights, quantising them when asked, in the calling thread)", prefix=True,
               suffix=("Flux1", "Flux1Kontext", "Flux1Fill", "Flux1Depth", "Flux1Redux", "Flux1Controlnet",
                       "Flux1InContextLoRA", "QwenImage", "QwenImageEdit", "ZImageTurbo", "FIBO", "Flux2Klein",
                       "Flux2KleinEdit")),
        Family(("PIL.Image.Image",), {"save": F}, "https://pillow.readthedocs.io/en/stable/reference/Image.html"
               "#PIL.Image.Image.save (encodes the image and writes the file in the calling thread)"),
        Family(("PIL.Image.Image",), {"resize": C, "thumbnail": C, "rotate": C}, "https://pillow.readthedocs.io/en/"
               "stable/reference/Image.html#PIL.Image.Image.resize (loads the pixels, decoding a lazily opened upload, "
               "and resamples every one in the calling thread; thumbnail resizes in place; rotate resamples the "
               "whole image the same way: #PIL.Image.Image.rotate)"),
    ),
    calls={
        "gradio_client.Client": (H, GRADIO),
        "PIL.Image.open": (F, "https://pillow.readthedocs.io/en/stable/reference/Image.html#PIL.Image.open (opens "
                              "the file and reads its header to identify the format; the pixels are decoded later, "
                              "on load)"),
        **{f"spacy.{t}.add_pipe": SPACY_ADD_PIPE for t in ("language.Language", "Language")},
        **{f"{pkg}.HFModel": (F, "https://dspy-docs.vercel.app/docs/deep-dive/language_model_clients/local_models/"
                                 "HFModel (\"Initialize HFModel ... with the desired model to load in\": the "
                                 "constructor loads the Hugging Face model and tokenizer)") for pkg in ("dsp", "dspy")},
        "chromadb.PersistentClient": (F, "https://docs.trychroma.com/reference/python/client#persistentclient (opens "
                                         "the SQLite store and the index files in the path given)"),
        "chromadb.HttpClient": (H, "https://docs.trychroma.com/reference/python/client#httpclient and chromadb/api/"
                                   "client.py (Client.__init__ validates the tenant and the database: get_tenant and "
                                   "get_database requests to the server; AsyncHttpClient is the async twin)"),
        "ffmpeg.run": (S, "https://kkroening.github.io/ffmpeg-python/#ffmpeg.run"),
        "pinecone.Pinecone.Index": (H, "https://docs.pinecone.io/guides/manage-data/target-an-index (by name only, the "
                                       "SDK calls describe_index to look the host up; passing host= skips it)"),
        # llama-index's store builds Pinecone(api_key).Index(index_name) itself unless given pinecone_index= (held-out
        # wave 64: a chatbot building it per request); from_params always does
        **{f"{store}{m}": (H, PINECONE_STORE) for store in _PINECONE_STORES for m in ("", ".from_params")},
        **{f"tokenizers.{c}.from_file": (F, "https://huggingface.co/docs/tokenizers/api/tokenizer#tokenizers."
                                            "Tokenizer.from_file (reads and parses the tokenizer JSON file)")
           for c in ("Tokenizer", "implementations.BaseTokenizer")},
        **{f"faiss.{f}": (F, "https://github.com/facebookresearch/faiss/wiki/Index-IO,-cloning-and-hyper-parameter-"
                             "tuning (read_index/write_index read or write the whole index file)")
           for f in ("read_index", "write_index")},
        **{f"mem0.{c}.from_config": (H, "https://docs.mem0.ai/open-source/python-quickstart (builds the LLM, embedder "
                                       "and vector store clients; the store connects and creates its collection)")
           for c in ("Memory", "memory.main.Memory")},
        "ffmpeg.probe": (S, "https://kkroening.github.io/ffmpeg-python/#ffmpeg.probe (runs ffprobe and waits)"),
        # ffprobe-python: the constructor runs the binary and parses its output (held-out wave 66: a Temporal
        # activity's FFProbe(path) before sending the audio to Whisper)
        "ffprobe.FFProbe": (S, "https://github.com/gbstack/ffprobe-python/blob/master/ffprobe/ffprobe.py (FFProbe.__init__ "
                               "runs ffprobe with subprocess.Popen and reads its whole output)"),
        "feedparser.parse": (H, "https://feedparser.readthedocs.io/en/latest/introduction.html (fetches a URL)"),
        "pymediainfo.MediaInfo.parse": (F, "https://pymediainfo.readthedocs.io/en/stable/pymediainfo.html#pymediainfo."
                                           "MediaInfo.parse (libmediainfo opens and reads the media file)"),
        "img2pdf.convert": (F, "https://gitlab.mister-muffin.de/josch/img2pdf#library (reads every image file given "
                               "and builds the PDF in memory)"),
        "trafilatura.fetch_url": (H, "https://trafilatura.readthedocs.io/en/latest/usage-python.html"),
        "whisper.load_model": (F, "https://github.com/openai/whisper#python-usage"),
        "faster_whisper.WhisperModel": (F, "https://github.com/SYSTRAN/faster-whisper#usage (loads the model)"),
        **{name: (F, source) for name, source in MODEL_LOADERS.items()},
        **{name: (F, source) for name, source in _AUDIO_LOADERS.items()},
        **_MLX,
        "docx.Document": (F, "https://python-docx.readthedocs.io/en/latest/api/document.html (opens and parses)"),
        "openpyxl.load_workbook": (F, "https://openpyxl.readthedocs.io/en/stable/tutorial.html#loading-from-a-file"),
        "openpyxl.reader.excel.load_workbook": (F, "https://openpyxl.readthedocs.io/en/stable/tutorial.html"),
        "textract.process": (S, "https://textract.readthedocs.io/en/stable/python_package.html (runs the parser "
                                "programs: pdftotext, tesseract, antiword...)"),
        "zipfile.ZipFile": (F, "https://docs.python.org/3/library/zipfile.html#zipfile-objects (opens the file)"),
        "tarfile.open": (F, "https://docs.python.org/3/library/tarfile.html#tarfile.open"),
        **{f"google.oauth2.id_token.{f}": (H, "https://googleapis.dev/python/google-auth/latest/reference/"
                                            "google.oauth2.id_token.html (fetches Google's certificates with the "
                                            "given sync transport)")
           for f in ("verify_oauth2_token", "verify_token", "verify_firebase_token", "fetch_id_token")},
        "smtplib.SMTP": ("blocking_socket_io", "https://docs.python.org/3/library/smtplib.html (connects to host)"),
        "smtplib.SMTP_SSL": ("blocking_socket_io", "https://docs.python.org/3/library/smtplib.html"),
        **{f"huggingface_hub.{f}": (H, "https://huggingface.co/docs/huggingface_hub/guides/download") for f in (
            "hf_hub_download", "snapshot_download", "upload_file", "upload_folder", "create_repo", "list_models",
            "model_info", "list_repo_files")},
        **{f"huggingface_hub.{m}{f}": (H, HUB_API_FUNCTIONS) for m in ("", "hf_api.") for f in _HUB_API_FUNCTIONS},
        **{f"huggingface_hub.{m}login": (H, HUB_LOGIN) for m in ("", "_login.")},
        "datasets.load_dataset": (H, "https://huggingface.co/docs/datasets/package_reference/loading_methods#datasets."
                                     "load_dataset (downloads the dataset from the Hub or reads the local cache, and "
                                     "prepares the Arrow files, in the calling thread)"),
        "datasets.load_from_disk": ("blocking_file_io", "https://huggingface.co/docs/datasets/package_reference/"
                                                        "loading_methods#datasets.load_from_disk (reads the saved "
                                                        "dataset's Arrow files)"),
    },
    returns={
        "gradio_client.Client": "gradio_client.Client", "chromadb.PersistentClient": "chromadb.PersistentClient",
        "whisper.load_model": "whisper.model.Whisper", "faster_whisper.WhisperModel": "faster_whisper.WhisperModel",
        "faiss.read_index": "faiss.Index", "mem0.Memory.from_config": "mem0.Memory", "mem0.Memory": "mem0.Memory",
        "mem0.MemoryClient": "mem0.MemoryClient",
        "spacy.blank": "spacy.language.Language", "spacy.load": "spacy.language.Language",
        "llama_cpp.Llama": "llama_cpp.Llama", "onnxruntime.InferenceSession": "onnxruntime.InferenceSession",
        "sentence_transformers.SentenceTransformer": "sentence_transformers.SentenceTransformer",
        "gtts.gTTS": "gtts.gTTS", "gtts.tts.gTTS": "gtts.gTTS",  # a class with a lower-case name
        "ffmpeg.input": "ffmpeg.Stream",
        **{f"PIL.Image.{f}": "PIL.Image.Image" for f in ("open", "new", "fromarray", "frombytes")},
        **{f"PIL.Image.Image.{m}": "PIL.Image.Image" for m in ("convert", "resize", "rotate", "crop", "copy",
                                                              "transpose", "filter")}, "pyttsx3.init": "pyttsx3.Engine",
        # ImageOps' functions and ImageEnhance's enhance return a new PIL Image (held-out wave 41: saved to a path)
        **{f"PIL.ImageOps.{f}": "PIL.Image.Image" for f in (
            "autocontrast", "colorize", "contain", "cover", "crop", "equalize", "expand", "exif_transpose", "fit",
            "flip", "grayscale", "invert", "mirror", "pad", "posterize", "scale", "solarize")},
        **{f"PIL.ImageEnhance.{c}.enhance": "PIL.Image.Image" for c in ("Brightness", "Color", "Contrast",
                                                                        "Sharpness")},
        **{f"pydub.AudioSegment.{m}": "pydub.AudioSegment" for m in ("from_file", "from_mp3", "from_wav", "from_ogg")},
        **{f"pydub.AudioSegment.{m}": "pydub.AudioSegment" for m in PYDUB_SEGMENT_METHODS},
        **{f"chromadb.{c}.{m}": "chromadb.Collection" for c in ("Client", "PersistentClient", "HttpClient")
           for m in ("get_or_create_collection", "create_collection", "get_collection")},
        "google.cloud.storage.Client.bucket": "google.cloud.storage.Bucket",
        "google.cloud.storage.Client.get_bucket": "google.cloud.storage.Bucket",
        "google.cloud.storage.Bucket.blob": "google.cloud.storage.Blob",
        "google.cloud.storage.Bucket.get_blob": "google.cloud.storage.Blob",
        # list_blobs returns an iterator of Blob objects (https://cloud.google.com/python/docs/reference/storage/latest/
        # google.cloud.storage.client.Client#google_cloud_storage_client_Client_list_blobs; held-out wave 70: each
        # listed blob downloaded in a loop)
        **{f"google.cloud.storage.{c}.list_blobs": GCS_LISTING for c in ("Client", "Bucket")},
        f"{GCS_LISTING}.__iter__": "google.cloud.storage.Blob",
        "google.generativeai.GenerativeModel.start_chat": "google.generativeai.ChatSession",
        "pinecone.Pinecone.Index": "pinecone.Index", "gspread.service_account": "gspread.Client",
        "gspread.authorize": "gspread.Client",
        "gspread.Client.open": "gspread.Spreadsheet", "gspread.Client.open_by_key": "gspread.Spreadsheet",
        "gspread.Spreadsheet.worksheet": "gspread.Worksheet", "gspread.Spreadsheet.sheet1": "gspread.Worksheet",
    },
    when={**{f"spacy.{t}.add_pipe": BlocksWhen("factory_name", position=0, test="other_than",
                                               values=SPACY_RULE_BASED) for t in ("language.Language", "Language")},
          "pinecone.Pinecone.Index": BlocksWhen("host", position=1, test="unset", absent=True),
          **{store: BlocksWhen("pinecone_index", position=0, test="unset", absent=True) for store in _PINECONE_STORES}},
)
