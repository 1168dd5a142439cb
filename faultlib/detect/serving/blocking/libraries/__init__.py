"""The registry of ``check blocking``'s built-in vocabulary: one module per library family.

Each module holds one :class:`~faultlib.detect.serving.blocking.entries.Vocabulary` of the calls that block in
its family, every entry with the documentation that says so. :data:`BUILTIN` lists them all; the same tables are
registered in the entry-point group ``faultlib.blocking_calls`` (``pyproject.toml``), where third parties add
theirs, and :func:`faultlib.detect.serving.blocking.vocab.vocabulary` merges them. A new family is a new module
here plus one line in :data:`BUILTIN` and one entry point.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.libraries.agents import AGENTS
from faultlib.detect.serving.blocking.libraries.arrays import ARRAYS
from faultlib.detect.serving.blocking.libraries.charts import CHARTS
from faultlib.detect.serving.blocking.libraries.cloud import CLOUD_AND_TASKS
from faultlib.detect.serving.blocking.libraries.databases import DATABASES
from faultlib.detect.serving.blocking.libraries.dataframes import DATAFRAMES
from faultlib.detect.serving.blocking.libraries.devices import DEVICES
from faultlib.detect.serving.blocking.libraries.documents import DOCUMENTS
from faultlib.detect.serving.blocking.libraries.helpdesk import HELPDESK
from faultlib.detect.serving.blocking.libraries.http import HTTP_CLIENTS
from faultlib.detect.serving.blocking.libraries.images import IMAGES
from faultlib.detect.serving.blocking.libraries.kafka import KAFKA
from faultlib.detect.serving.blocking.libraries.karton import KARTON
from faultlib.detect.serving.blocking.libraries.loaded import LOADED
from faultlib.detect.serving.blocking.libraries.media import MEDIA
from faultlib.detect.serving.blocking.libraries.models import MODELS
from faultlib.detect.serving.blocking.libraries.ocr import OCR
from faultlib.detect.serving.blocking.libraries.openvino import OPENVINO
from faultlib.detect.serving.blocking.libraries.passwords import PASSWORDS
from faultlib.detect.serving.blocking.libraries.resources import RESOURCES
from faultlib.detect.serving.blocking.libraries.retrieval import RETRIEVAL
from faultlib.detect.serving.blocking.libraries.rpc import RPC
from faultlib.detect.serving.blocking.libraries.runtimes import RUNTIMES
from faultlib.detect.serving.blocking.libraries.spark import SPARK
from faultlib.detect.serving.blocking.libraries.speech import SPEECH
from faultlib.detect.serving.blocking.libraries.stdlib import STDLIB
from faultlib.detect.serving.blocking.libraries.storage import STORAGE
from faultlib.detect.serving.blocking.libraries.streams import STREAMS
from faultlib.detect.serving.blocking.libraries.system import SYSTEM
from faultlib.detect.serving.blocking.libraries.vcs import VCS
from faultlib.detect.serving.blocking.libraries.vectors import VECTORS
from faultlib.detect.serving.blocking.libraries.voice import VOICE
from faultlib.detect.serving.blocking.libraries.weights import WEIGHTS
from faultlib.detect.serving.blocking.libraries.agentkits import AGENT_KITS
from faultlib.detect.serving.blocking.libraries.cloudsdks import CLOUD_SDKS
from faultlib.detect.serving.blocking.libraries.fileformats import FILE_FORMATS
from faultlib.detect.serving.blocking.libraries.homeauto import HOME_AUTOMATION
from faultlib.detect.serving.blocking.libraries.llmclients import LLM_CLIENTS
from faultlib.detect.serving.blocking.libraries.messaging import MESSAGING
from faultlib.detect.serving.blocking.libraries.netstdlib import NET_STDLIB
from faultlib.detect.serving.blocking.libraries.waits import WAITS
from faultlib.detect.serving.blocking.libraries.datastores import DATA_STORES
from faultlib.detect.serving.blocking.libraries.rerankers import RERANKERS
from faultlib.detect.serving.blocking.libraries.sqldrivers import SQL_DRIVERS
from faultlib.detect.serving.blocking.libraries.timezones import TIME_ZONES
from faultlib.detect.serving.blocking.libraries.exchanges import CRYPTO_EXCHANGES
from faultlib.detect.serving.blocking.libraries.securitysdks import SECURITY_SDKS
from faultlib.detect.serving.blocking.libraries.notebooks import NOTEBOOKS
from faultlib.detect.serving.blocking.libraries.domains import DOMAINS
from faultlib.detect.serving.blocking.libraries.dbhelpers import DB_HELPERS
from faultlib.detect.serving.blocking.libraries.configs import CONFIG_FILES
from faultlib.detect.serving.blocking.libraries.speechengines import SPEECH_ENGINES
from faultlib.detect.serving.blocking.libraries.sqlwrappers import SQL_WRAPPERS
from faultlib.detect.serving.blocking.libraries.responses import RESPONSE_BODIES
from faultlib.detect.serving.blocking.libraries.certificates import CERTIFICATES
from faultlib.detect.serving.blocking.libraries.imports import IMPORTS
from faultlib.detect.serving.blocking.libraries.codehosts import CODE_HOSTS
from faultlib.detect.serving.blocking.libraries.googleauth import GOOGLE_AUTH_FLOWS
from faultlib.detect.serving.blocking.libraries.netlookups import NET_LOOKUPS
from faultlib.detect.serving.blocking.libraries.fonts import FONTS
from faultlib.detect.serving.blocking.libraries.hafiles import HA_FILES
from faultlib.detect.serving.blocking.libraries.taskqueues import TASK_QUEUES
from faultlib.detect.serving.blocking.libraries.embedders import EMBEDDERS
from faultlib.detect.serving.blocking.libraries.botclients import BOT_CLIENTS
from faultlib.detect.serving.blocking.libraries.mediameta import MEDIA_METADATA
from faultlib.detect.serving.blocking.libraries.clusters import CLUSTERS
from faultlib.detect.serving.blocking.libraries.browsers import BROWSERS
from faultlib.detect.serving.blocking.libraries.hosting import HOSTING
from faultlib.detect.serving.blocking.libraries.containers import CONTAINERS
from faultlib.detect.serving.blocking.libraries.kubernetesapi import KUBERNETES
from faultlib.detect.serving.blocking.libraries.graphindexes import GRAPH_INDEXES
from faultlib.detect.serving.blocking.libraries.scrapers import SCRAPER_TOOLS
from faultlib.detect.serving.blocking.libraries.lightning import LIGHTNING_NODES
from faultlib.detect.serving.blocking.libraries.telemetry import TELEMETRY
from faultlib.detect.serving.blocking.libraries.beatmaps import BEATMAPS
from faultlib.detect.serving.blocking.libraries.gitobjects import GIT_OBJECTS
from faultlib.detect.serving.blocking.libraries.gitworktree import GIT_WORKTREE
from faultlib.detect.serving.blocking.libraries.flasksqlalchemy import FLASK_SQLALCHEMY
from faultlib.detect.serving.blocking.libraries.imageenhance import IMAGE_ENHANCE
from faultlib.detect.serving.blocking.libraries.sqlitewrappers import SQLITE_WRAPPERS
from faultlib.detect.serving.blocking.libraries.langchainstores import LANGCHAIN_STORES
from faultlib.detect.serving.blocking.libraries.modalclient import MODAL_CLIENT
from faultlib.detect.serving.blocking.libraries.processes import PROCESSES
from faultlib.detect.serving.blocking.libraries.processors import PROCESSORS
from faultlib.detect.serving.blocking.libraries.artifacts import ARTIFACTS
from faultlib.detect.serving.blocking.libraries.imagefilters import IMAGE_FILTERS
from faultlib.detect.serving.blocking.libraries.launchers import LAUNCHERS
from faultlib.detect.serving.blocking.libraries.dbuspython import DBUS_PYTHON
from faultlib.detect.serving.blocking.libraries.djangoorm import DJANGO_ORM
from faultlib.detect.serving.blocking.libraries.chatuploads import CHAT_UPLOADS
from faultlib.detect.serving.blocking.libraries.eventqueues import EVENT_QUEUES
from faultlib.detect.serving.blocking.libraries.pubsub import PUBSUB
from faultlib.detect.serving.blocking.libraries.imageprep import IMAGE_PREPROCESSING
from faultlib.detect.serving.blocking.libraries.warehouses import WAREHOUSES
from faultlib.detect.serving.blocking.libraries.textguards import TEXT_GUARDS
from faultlib.detect.serving.blocking.libraries.optimumort import OPTIMUM_ORT
from faultlib.detect.serving.blocking.libraries.scholarly import COMMONMETA, ZOTERO
from faultlib.detect.serving.blocking.libraries.ssh import SSH
from faultlib.detect.serving.blocking.libraries.wikis import WIKIS
from faultlib.detect.serving.blocking.libraries.ptys import PTY_CHILDREN
from faultlib.detect.serving.blocking.libraries.lmdbstores import LMDB_STORES
from faultlib.detect.serving.blocking.libraries.libgit2 import LIBGIT2
from faultlib.detect.serving.blocking.libraries.genai import GENAI
from faultlib.detect.serving.blocking.libraries.officebridge import OFFICE_BRIDGE
from faultlib.detect.serving.blocking.libraries.treeruntimes import TREE_RUNTIMES
from faultlib.detect.serving.blocking.libraries.redisorms import REDIS_ORMS
from faultlib.detect.serving.blocking.libraries.cameras import CAMERAS
from faultlib.detect.serving.blocking.libraries.faces import FACES
from faultlib.detect.serving.blocking.libraries.robotics import ROBOTICS
from faultlib.detect.serving.blocking.libraries.filelocks import FILE_LOCKS
from faultlib.detect.serving.blocking.libraries.firestore import FIRESTORE
from faultlib.detect.serving.blocking.libraries.keycloak import KEYCLOAK
from faultlib.detect.serving.blocking.libraries.ratelimits import RATE_LIMITS
from faultlib.detect.serving.blocking.libraries.keypairs import KEY_PAIRS
from faultlib.detect.serving.blocking.libraries.compressors import COMPRESSORS
from faultlib.detect.serving.blocking.libraries.geoip import GEOIP
from faultlib.detect.serving.blocking.sdks import SDKS

BUILTIN = (LOADED, STDLIB, HTTP_CLIENTS, DATABASES, CLOUD_AND_TASKS, MODELS, SDKS, SPEECH, DOCUMENTS, VOICE, OPENVINO,
           ARRAYS, RPC, STREAMS, VECTORS, AGENTS, RESOURCES, RUNTIMES,
           IMAGES, HELPDESK, KAFKA, STORAGE, WEIGHTS, DEVICES, RETRIEVAL, SYSTEM, DATAFRAMES, OCR,
           SPARK, VCS, KARTON, MEDIA, CHARTS, PASSWORDS,
           FILE_FORMATS, NET_STDLIB, WAITS, LLM_CLIENTS, AGENT_KITS, MESSAGING, CLOUD_SDKS, HOME_AUTOMATION,
           SQL_DRIVERS, DATA_STORES, RERANKERS, TIME_ZONES, CRYPTO_EXCHANGES, SECURITY_SDKS, NOTEBOOKS, DOMAINS,
           DB_HELPERS, CONFIG_FILES, SPEECH_ENGINES, SQL_WRAPPERS, RESPONSE_BODIES, CERTIFICATES, IMPORTS, CODE_HOSTS,
           GOOGLE_AUTH_FLOWS, NET_LOOKUPS, FONTS, HA_FILES, TASK_QUEUES, EMBEDDERS, BOT_CLIENTS, MEDIA_METADATA,
           CLUSTERS, BROWSERS, HOSTING, GRAPH_INDEXES, SCRAPER_TOOLS, CONTAINERS, LIGHTNING_NODES, TELEMETRY,
           BEATMAPS, SQLITE_WRAPPERS, IMAGE_ENHANCE, GIT_OBJECTS, GIT_WORKTREE, FLASK_SQLALCHEMY, KUBERNETES,
           LANGCHAIN_STORES, MODAL_CLIENT, PROCESSES, PROCESSORS, ARTIFACTS, IMAGE_FILTERS, LAUNCHERS, DBUS_PYTHON,
           DJANGO_ORM, CHAT_UPLOADS, EVENT_QUEUES, PUBSUB, IMAGE_PREPROCESSING, WAREHOUSES, TEXT_GUARDS, OPTIMUM_ORT, COMMONMETA, SSH,
           ZOTERO, WIKIS, PTY_CHILDREN, LMDB_STORES, LIBGIT2, GENAI, OFFICE_BRIDGE,
           TREE_RUNTIMES, REDIS_ORMS, CAMERAS, FACES, ROBOTICS, FILE_LOCKS,
           FIRESTORE, KEYCLOAK, RATE_LIMITS, KEY_PAIRS, COMPRESSORS, GEOIP)
"""Every built-in table, in merge order (a later table's entry replaces an earlier one's)."""

__all__ = ["COMPRESSORS", "GEOIP", "FIRESTORE", "KEYCLOAK", "RATE_LIMITS", "KEY_PAIRS", "FILE_LOCKS", "ROBOTICS", "FACES", "CAMERAS", "REDIS_ORMS", "TREE_RUNTIMES", "OFFICE_BRIDGE", "GENAI", "WIKIS", "LIBGIT2", "LMDB_STORES", "PTY_CHILDREN", "ZOTERO", "SSH", "COMMONMETA", "OPTIMUM_ORT", "TEXT_GUARDS", "WAREHOUSES", "IMAGE_PREPROCESSING", "PUBSUB", "EVENT_QUEUES", "CHAT_UPLOADS", "DJANGO_ORM", "DBUS_PYTHON", "LAUNCHERS", "IMAGE_FILTERS", "ARTIFACTS", "PROCESSORS", "PROCESSES", "MODAL_CLIENT", "LANGCHAIN_STORES", "KUBERNETES", "SQLITE_WRAPPERS", "IMAGE_ENHANCE", "GIT_OBJECTS", "GIT_WORKTREE", "FLASK_SQLALCHEMY", "BEATMAPS", "TELEMETRY", "LIGHTNING_NODES", "BROWSERS", "HOSTING", "CONTAINERS", "GRAPH_INDEXES", "SCRAPER_TOOLS", "CLUSTERS", "BOT_CLIENTS", "MEDIA_METADATA", "EMBEDDERS", "TASK_QUEUES", "CERTIFICATES", "IMPORTS", "CODE_HOSTS", "GOOGLE_AUTH_FLOWS", "NET_LOOKUPS", "FONTS", "HA_FILES", "RESPONSE_BODIES", "CONFIG_FILES", "SPEECH_ENGINES", "SQL_WRAPPERS", "DB_HELPERS", "DOMAINS", "NOTEBOOKS", "SECURITY_SDKS", "TIME_ZONES", "CRYPTO_EXCHANGES", "AGENT_KITS", "CLOUD_SDKS", "FILE_FORMATS", "HOME_AUTOMATION", "LLM_CLIENTS", "MESSAGING", "NET_STDLIB",
           "WAITS", "SQL_DRIVERS", "DATA_STORES", "RERANKERS", "AGENTS", "ARRAYS", "BUILTIN", "CHARTS", "CLOUD_AND_TASKS", "DATABASES", "DATAFRAMES", "DEVICES", "DOCUMENTS", "HELPDESK",
           "HTTP_CLIENTS", "IMAGES", "KAFKA", "KARTON", "LOADED", "MEDIA", "MODELS", "OCR", "OPENVINO", "PASSWORDS", "RESOURCES", "RETRIEVAL", "RPC",
           "RUNTIMES", "SDKS", "SPARK", "SPEECH", "STDLIB", "STORAGE", "STREAMS", "SYSTEM", "VCS", "VECTORS", "VOICE", "WEIGHTS"]
