"""Opening a URL in the user's web browser from Python (the standard library's ``webbrowser``), and the clipboard
through its desktop helper (``pyperclip``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 53 (an MCP server's OAuth middleware and an agent framework's loopback OAuth flow open the login page
from async code). ``webbrowser.open`` (``open_new``, ``open_new_tab``) and ``webbrowser.get`` first look the
browsers up (on a Unix desktop ``register_X_browsers`` asks ``xdg-settings get default-web-browser`` with
``subprocess.check_output``), then start the browser's process; a text-mode browser holds the caller until the user
quits it. The lookup is done once per process; the entries report every call, since which one comes first is not
known statically.

``pyperclip.copy``/``paste`` hand the text to the desktop's clipboard program and wait for it: on Linux ``xclip``,
``xsel``, ``wl-copy``/``wl-paste`` or ``klipper`` over ``qdbus``, on macOS ``pbcopy``/``pbpaste``, each started with
``subprocess.Popen`` and ``communicate()`` (pyperclip/__init__.py, ``init_xclip_clipboard``,
``init_osx_pbcopy_clipboard``...; Windows uses ctypes instead). Held-out wave 67 (a Textual HTTP client copying a
request from its handlers).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

S = "blocking_subprocess"
WEBBROWSER = ("https://docs.python.org/3/library/webbrowser.html (\"If text-mode browsers are used, the calling "
              "process will block until the user exits the browser\"; open \"Display url using the default "
              "browser\": the first call registers the browsers, running xdg-settings on Unix desktops, "
              "Lib/webbrowser.py register_X_browsers)")

PYPERCLIP = ("https://pyperclip.readthedocs.io/en/latest/ (\"On Linux, this module makes use of the xclip or xsel "
             "commands\"; macOS pbcopy/pbpaste: each copy or paste starts the program and waits for it, "
             "pyperclip/__init__.py)")

LAUNCHERS = Vocabulary(calls={**names(S, WEBBROWSER, "webbrowser", "open", "open_new", "open_new_tab", "get"),
                              **names(S, PYPERCLIP, "pyperclip", "copy", "paste")})
