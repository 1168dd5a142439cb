"""LibreOffice driven from Python: the UNO bridge (PyUNO) to a running ``soffice``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; found by
held-out wave 73: an Office-to-PDF service whose async endpoint connects to ``soffice``, loads the uploaded document
and stores it as PDF through UNO). PyUNO maps every UNO call to a synchronous Python call: a call on an object of
the remote office goes over the bridge's socket (the ``urp`` protocol) and waits for the office's answer. The chain:

* ``uno.getComponentContext()`` is the process's own (local) context; its ``ServiceManager.createInstanceWithContext(
  "com.sun.star.bridge.UnoUrlResolver", ctx)`` builds a local service (no office yet, no I/O);
* ``resolver.resolve("uno:socket,host=...,port=...;urp;StarOffice.ComponentContext")`` connects to the office and
  returns its component context (:data:`REMOTE`), ``blocking_socket_io``;
* every object reached from there lives in the office: ``ServiceManager.createInstanceWithContext(...)`` there (the
  ``Desktop``), and what ``loadComponentFromURL`` returns (the document). The calls that make the office work
  (:data:`OFFICE_WORK`) are reported: loading a document (``loadComponentFromURL``: the office reads and lays it out),
  storing or exporting it (``storeToURL``/``storeAsURL``/``store``: a PDF export renders every page), closing or
  disposing it and ending the office (``terminate``). Small property reads and setters stay unreported.

(unoserver's ``UnoClient``, its XML-RPC client, is already a client by its class name.)
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

S = "blocking_socket_io"
IDL = "https://api.libreoffice.org/docs/idl/ref/"
BRIDGE = ("https://wiki.documentfoundation.org/Macros/Python_Guide/Introduction and "
          "https://www.openoffice.org/udk/python/python-bridge.html (PyUNO: a UNO call is a synchronous Python call; "
          "an object of a remote office is reached over the interprocess bridge)")
RESOLVE = (IDL + "interfacecom_1_1sun_1_1star_1_1bridge_1_1XUnoUrlResolver.html (resolve: 'resolves an object, on "
           "the UNO URL': connects to the office and returns its object; " + BRIDGE + ")")
WORK = (IDL + "interfacecom_1_1sun_1_1star_1_1frame_1_1XComponentLoader.html (loadComponentFromURL), "
        + IDL + "interfacecom_1_1sun_1_1star_1_1frame_1_1XStorable.html (store, storeAsURL, storeToURL), "
        + IDL + "interfacecom_1_1sun_1_1star_1_1util_1_1XCloseable.html (close), "
        + IDL + "interfacecom_1_1sun_1_1star_1_1frame_1_1XDesktop.html (terminate); " + BRIDGE)

LOCAL = "uno.LocalComponentContext"
"""The type given to ``uno.getComponentContext()`` (a name no real class has): the process's own context."""
LOCAL_SERVICE = "uno.LocalService"
"""A service its local service manager built (the ``UnoUrlResolver``)."""
REMOTE = "uno.RemoteOfficeObject"
"""An object of the office at the other end of the bridge (its context, service manager, desktop, a document)."""

OFFICE_WORK = ("loadComponentFromURL", "storeToURL", "storeAsURL", "store", "close", "dispose", "terminate")

OFFICE_BRIDGE = Vocabulary(
    calls={},
    families=(
        Family((LOCAL,), {}, BRIDGE, resources=frozenset({"ServiceManager"})),
        Family((LOCAL_SERVICE,), {"resolve": S}, RESOLVE),
        Family((REMOTE,), {m: S for m in OFFICE_WORK}, WORK, resources=frozenset({"ServiceManager"})),
    ),
    returns={
        "uno.getComponentContext": LOCAL,
        f"{LOCAL}.ServiceManager.createInstanceWithContext": LOCAL_SERVICE,
        f"{LOCAL}.ServiceManager.createInstance": LOCAL_SERVICE,
        f"{LOCAL_SERVICE}.resolve": REMOTE,
        f"{REMOTE}.ServiceManager.createInstanceWithContext": REMOTE,
        f"{REMOTE}.ServiceManager.createInstance": REMOTE,
        f"{REMOTE}.loadComponentFromURL": REMOTE,
    },
)
