"""Synchronous clients of the servers chat and download bots drive: mattermostdriver (Mattermost), qbittorrent-api
(qBittorrent's WebUI), aria2p (aria2's JSON-RPC) and Instaloader (Instagram).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 35 (a Mattermost bot, a Telegram leech bot). Each client sends its requests with ``requests`` in the
calling thread and waits for the answer: every API method of the client, and of the endpoint objects it exposes as
attributes (``driver.posts.create_post``, ``client.torrents.info``, ``client.application.set_preferences``), is a
blocking HTTP call; constructing a client sends nothing. The async twins (mattermostdriver's ``AsyncDriver``) are left
out by their names. aria2p's ``Download`` is a snapshot of one download: its ``update``/``remove``/``pause``/``resume``
/``purge``/``move*`` methods send a request, its ``*_string`` formatters and properties read the snapshot.
matrix-nio's ``AsyncClient`` is the async client of a Matrix bot, but its store methods are plain ones (held-out
wave 72).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
MATTERMOST = ("https://vaelor.github.io/python-mattermost-driver/ (Driver sends each endpoint call -- "
              "driver.posts.create_post, driver.channels.get_channel... -- with requests; AsyncDriver is the async "
              "variant)")
QBITTORRENT = ("https://qbittorrent-api.readthedocs.io/en/latest/introduction.html (Client(host, username, "
               "password); every method -- auth_log_in, torrents_info, torrents_add, and the namespaces "
               "client.torrents.info(), client.application.set_preferences() -- is a request to the WebUI API, sent "
               "with requests)")
ARIA2P = ("https://pawamoy.github.io/aria2p/reference/aria2p/ (API wraps a Client that posts JSON-RPC requests with "
          "requests; add_magnet, add_uris, get_download, and Download.update/remove/pause/resume each send one)")
INSTALOADER = ("https://instaloader.github.io/module/instaloader.html (Instaloader.download_post downloads the "
               "post's pictures, videos and metadata; Post.from_shortcode and Profile.from_username fetch the "
               "metadata from Instagram)")

_DRIVERS = ("mattermostdriver.Driver", "mattermostdriver.driver.Driver")
_ENDPOINTS = frozenset({"users", "teams", "channels", "posts", "files", "preferences", "emoji", "reactions", "system",
                        "webhooks", "commands", "compliance", "cluster", "brand", "oauth", "saml", "ldap", "roles",
                        "schemes", "status", "bots", "opengraph", "elasticsearch", "data_retention", "threads",
                        "integration_actions", "incoming_webhooks", "outgoing_webhooks"})
"""The endpoint objects a ``Driver`` exposes (https://vaelor.github.io/python-mattermost-driver/endpoints.html)."""
_QBIT = ("qbittorrentapi.Client", "qbittorrentapi.client.Client")
_NAMESPACES = frozenset({"app", "application", "auth", "log", "sync", "transfer", "torrents", "torrent_categories",
                         "torrent_tags", "rss", "search"})
"""The API namespaces of a qbittorrent-api ``Client`` (https://qbittorrent-api.readthedocs.io/en/latest/
introduction.html: ``client.app``, ``client.torrents``...)."""
_ARIA_API = ("aria2p.API", "aria2p.api.API")
_ARIA_DOWNLOAD = ("aria2p.Download", "aria2p.downloads.Download")
_DOWNLOAD_REQUESTS = ("update", "remove", "pause", "resume", "purge", "move", "move_up", "move_down", "move_to",
                      "move_to_top", "move_to_bottom")
_INSTALOADER = ("instaloader.Instaloader", "instaloader.instaloader.Instaloader")
NIO_STORE = ("https://matrix-nio.readthedocs.io/en/latest/nio.html#nio.Client.load_store (\"Load the session store and "
             "olm account\": a plain method, not a coroutine, that opens the SQLite crypto store under store_path and "
             "reads the olm account from it; restore_login calls it only where the e2e extra, python-olm, is "
             "installed, and is otherwise bookkeeping: left out)")
_NIO_CLIENTS = ("nio.AsyncClient", "nio.client.AsyncClient", "nio.client.async_client.AsyncClient", "nio.Client",
                "nio.client.Client", "nio.client.base_client.Client")

BOT_CLIENTS = Vocabulary(
    calls={
        **{f"instaloader.{c}.{m}": (H, INSTALOADER) for c, m in (("Post", "from_shortcode"),
                                                                  ("Profile", "from_username"),
                                                                  ("structures.Post", "from_shortcode"),
                                                                  ("structures.Profile", "from_username"))},
    },
    families=(
        Family(_DRIVERS, {"*": H}, MATTERMOST, resources=_ENDPOINTS, except_=frozenset({"disconnect"})),
        Family(_QBIT, {"*": H}, QBITTORRENT, resources=_NAMESPACES),
        Family(_ARIA_API, {"*": H}, ARIA2P, except_=frozenset({"stop_listening"})),
        Family(_ARIA_DOWNLOAD, {m: H for m in _DOWNLOAD_REQUESTS}, ARIA2P),
        Family(_INSTALOADER, {m: H for m in ("download_post", "download_profile", "download_profiles",
                                             "download_hashtag", "download_stories", "download_highlights",
                                             "download_saved_posts", "download_feed_posts", "download_pic",
                                             "login", "test_login", "load_session_from_file",
                                             "save_session_to_file", "get_stories", "get_highlights")},
               INSTALOADER),
        Family(_NIO_CLIENTS, {"load_store": "blocking_db"}, NIO_STORE),
    ),
    returns={
        **{d: "mattermostdriver.Driver" for d in _DRIVERS}, **{q: "qbittorrentapi.Client" for q in _QBIT},
        **{a: "aria2p.API" for a in _ARIA_API},
        **{f"{a}.{m}": "aria2p.Download" for a in _ARIA_API for m in ("get_download", "add_magnet",
                                                                         "add_torrent", "add_metalink")},
        **{i: "instaloader.Instaloader" for i in _INSTALOADER},
    },
)
