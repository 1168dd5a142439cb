"""Helpers that crawlers, scrapers and OSINT command lines call between their async requests: PyExecJS (signing a
request with a site's JavaScript), fake-useragent, cookie files, report writers (pyvis, xhtml2pdf), audio tags
(mutagen), a machine id for telemetry, Chinese word segmentation (jieba), word clouds, BeautifulSoup over a fetched
page (:mod:`~faultlib.detect.serving.blocking.fetched_pages`: the house rule on parse sizes) and readabilipy's article
extraction (with ``use_readability=True`` and Node.js installed it writes the page to a temporary file and runs
Mozilla's Readability.js under ``node``; held-out wave 53: the MCP reference fetch server simplifies every page so),
browserforge's header and fingerprint generators (their data files read on every construction; held-out wave 67: a
scraper building stealth headers for each request).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 43 (a Playwright crawler signing every request with ``execjs``, aiohttp scrapers and username checkers
writing their reports, a downloader's web UI reading the tags of the songs it already has). Each entry names the
documentation of the call. Left out: ``jieba.cut`` (a lazy generator; the work runs where it is iterated), pyvis'
graph building (``add_node``/``add_edge`` stay in memory), ``http.cookiejar.CookieJar`` (an in-memory jar).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import (
          ANY_ARGUMENT,
          BlocksWhen,
          Family,
          Vocabulary,
)
from faultlib.detect.serving.blocking.libraries.names import names

F, C, S = "blocking_file_io", "blocking_cpu", "blocking_subprocess"
EXECJS = ("https://github.com/doloopwhile/PyExecJS#usage (execjs.eval/exec_ and a compiled context's call/eval run "
          "the source in the JavaScript runtime; with an external runtime such as Node.js each call writes the "
          "program to a temporary file and runs the runtime as a subprocess, waiting for its output)")
EXECJS_CONTEXT = "execjs.Context"
FAKE_UA = ("https://github.com/fake-useragent/fake-useragent#usage (UserAgent() loads its browser data when "
           "constructed: a JSON file read from the package, or, before 1.0, fetched over HTTP and cached on disk)")
COOKIE_FILES = ("https://docs.python.org/3/library/http.cookiejar.html#http.cookiejar.FileCookieJar.load (load, "
                "save and revert read or write the jar's file)")
_FILE_JARS = tuple(f"http.cookiejar.{c}" for c in ("FileCookieJar", "MozillaCookieJar", "LWPCookieJar"))
PYVIS = ("https://pyvis.readthedocs.io/en/latest/documentation.html#pyvis.network.Network.show (show, write_html "
         "and save_graph render the graph's HTML and write it to the file named)")
PYVIS_NETWORK = "pyvis.network.Network"
XHTML2PDF = ("https://xhtml2pdf.readthedocs.io/en/latest/usage.html#using-xhtml2pdf-in-python (pisa.CreatePDF parses "
             "the HTML and CSS, lays out and renders the whole PDF, and writes it to dest)")
MUTAGEN = ("https://mutagen.readthedocs.io/en/latest/api/base.html#mutagen.File (opens the file, guesses its format "
           "and parses its tags; a format class given a filename does the same, save() writes the tags back)")
MUTAGEN_FILE = "mutagen.FileType"
_MUTAGEN_FORMATS = ("mp3.MP3", "easyid3.EasyID3", "id3.ID3", "flac.FLAC", "mp4.MP4", "easymp4.EasyMP4",
                    "oggvorbis.OggVorbis", "oggopus.OggOpus", "wave.WAVE", "aiff.AIFF", "asf.ASF")
MACHINE_ID = ("https://github.com/keygen-sh/py-machineid#usage (reads /etc/machine-id or /var/lib/dbus/machine-id, "
              "or runs ioreg / wmic / kenv on other systems)")
JIEBA = ("https://github.com/fxsjy/jieba#1-%E5%88%86%E8%AF%8D (lcut segments the text in the calling thread; the "
         "first use loads and builds the prefix dictionary from disk, about a second)")
WORDCLOUD = ("https://amueller.github.io/word_cloud/generated/wordcloud.WordCloud.html (generate* loads the font and "
             "lays out every word on the image in the calling thread; to_file renders and writes the image)")
WORD_CLOUD = "wordcloud.WordCloud"

READABILIPY = ("https://github.com/alan-turing-institute/ReadabiliPy#python (simple_json_from_html_string(html, "
               "use_readability=True) \"uses Mozilla's Readability.js ... requires Node.js\": the page is written to "
               "a temporary file and node runs the script, the call waiting for its output)")

BEAUTIFUL_SOUP = ("https://www.crummy.com/software/BeautifulSoup/bs4/doc/#making-the-soup (the constructor parses the "
                  "whole markup and builds the tree in the calling thread; measured 65 ms per 100 KB with html.parser: "
                  "a fetched page, fetched_pages.py)")
_SOUPS = ("bs4.BeautifulSoup", "bs4.BeautifulStoneSoup")

BROWSERFORGE = ("https://github.com/daijro/browserforge#generating-headers (HeaderGenerator(...) loads its data "
                "when constructed: browserforge/headers/generator.py's __init__ reads and parses the browser helper "
                "and headers-order JSON files of apify_fingerprint_datapoints, on every construction; a "
                "FingerprintGenerator constructs one)")
_BROWSERFORGE = ("browserforge.headers.HeaderGenerator", "browserforge.headers.generator.HeaderGenerator",
                 "browserforge.fingerprints.FingerprintGenerator",
                 "browserforge.fingerprints.generator.FingerprintGenerator")

SCRAPER_TOOLS = Vocabulary(
    calls={
        **names(S, READABILIPY, "readabilipy.simple_json", "simple_json_from_html_string"),
        **names(S, READABILIPY, "readabilipy", "simple_json_from_html_string"),
        **names(S, EXECJS, "execjs", "eval", "exec_"),
        **names(F, FAKE_UA, "fake_useragent", "UserAgent", "FakeUserAgent"),
        **names(C, XHTML2PDF, "xhtml2pdf.pisa", "CreatePDF", "pisaDocument"),
        "mutagen.File": (F, MUTAGEN), "mutagen._file.File": (F, MUTAGEN),  # where mutagen defines it
        **{f"mutagen.{c}": (F, MUTAGEN) for c in _MUTAGEN_FORMATS},
        **names(F, MACHINE_ID, "machineid", "id", "hashed_id"),
        **names(C, JIEBA, "jieba", "lcut", "lcut_for_search", "initialize"),
        **names(C, JIEBA, "jieba.analyse", "extract_tags", "textrank"),
        "jieba.load_userdict": (F, JIEBA),
        **{soup: (C, BEAUTIFUL_SOUP) for soup in _SOUPS},
        **{generator: (F, BROWSERFORGE) for generator in _BROWSERFORGE},
    },
    when={**{f"mutagen.{c}": BlocksWhen(ANY_ARGUMENT, test="given") for c in _MUTAGEN_FORMATS},
          **{f"{m}.simple_json_from_html_string": BlocksWhen("use_readability", position=3, test="true")
             for m in ("readabilipy", "readabilipy.simple_json")},
          **{soup: BlocksWhen("markup", position=0, test="fetched") for soup in _SOUPS}},
    returns={"execjs.compile": EXECJS_CONTEXT, "execjs.get": "execjs.Runtime", "execjs.Runtime.compile": EXECJS_CONTEXT,
             **{j: j for j in _FILE_JARS}, PYVIS_NETWORK: PYVIS_NETWORK,
             "mutagen.File": MUTAGEN_FILE, "mutagen._file.File": MUTAGEN_FILE, **{f"mutagen.{c}": MUTAGEN_FILE for c in _MUTAGEN_FORMATS},
             WORD_CLOUD: WORD_CLOUD,
             **{f"{WORD_CLOUD}.{m}": WORD_CLOUD for m in ("generate", "generate_from_text", "generate_from_frequencies",
                                                          "fit_words")}},
    families=(
        Family((EXECJS_CONTEXT,), {"call": S, "eval": S, "exec_": S}, EXECJS),
        Family(("execjs.Runtime",), {"eval": S, "exec_": S}, EXECJS),
        Family(_FILE_JARS, {"load": F, "save": F, "revert": F}, COOKIE_FILES),
        Family((PYVIS_NETWORK,), {"show": F, "write_html": F, "save_graph": F}, PYVIS),
        Family((MUTAGEN_FILE,), {"save": F, "delete": F, "load": F}, MUTAGEN),
        Family((WORD_CLOUD,), {"generate": C, "generate_from_text": C, "generate_from_frequencies": C,
                               "fit_words": C, "to_file": F, "to_image": C, "to_array": C}, WORDCLOUD),
    ),
)
