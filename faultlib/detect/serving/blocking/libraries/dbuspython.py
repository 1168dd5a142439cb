"""dbus-python, the reference binding of D-Bus: its bus connections, proxies and interfaces call synchronously.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). D-Bus is
an IPC over a local socket (BlueZ, NetworkManager, systemd and the desktop services answer on it). dbus-python
connects when the bus object is built (``dbus.SystemBus()``: the socket and the ``Hello`` round trip), asks the bus
for the owner of a well-known name when a proxy is made (``bus.get_object(name, path)``) and sends every method call
as a blocking call that waits for the reply (``dbus.Interface(proxy, iface).Get(...)``), unless the caller passes
``reply_handler``/``error_handler`` and runs a GLib main loop. A Bluetooth bridge reading a battery level this way
on every poll of its asyncio loop froze it (held-out wave 52). The asyncio-native bindings (``dbus_fast.aio``,
``dbus_next.aio``) are other packages and stay silent. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

S = "blocking_socket_io"
TUTORIAL = "https://dbus.freedesktop.org/doc/dbus-python/tutorial.html"
CONNECT = TUTORIAL + "#connecting-to-the-bus (SystemBus()/SessionBus() open the connection to the bus daemon)"
PROXY = (TUTORIAL + "#proxy-objects (get_object returns a proxy; unless follow_name_owner_changes it resolves the "
         "name's owner with a blocking GetNameOwner call, https://dbus.freedesktop.org/doc/dbus-python/dbus.proxies"
         ".html)")
CALLS = (TUTORIAL + "#making-method-calls (a method call on a proxy or Interface waits for the reply; only "
         "#asynchronous-method-calls with reply_handler/error_handler and an event loop do not)")

BUSES = ("dbus.SystemBus", "dbus.SessionBus", "dbus.StarterBus", "dbus.Bus", "dbus.bus.BusConnection",
         "dbus._dbus.SystemBus", "dbus._dbus.SessionBus")
PROXIES = ("dbus.proxies.ProxyObject", "dbus.Interface", "dbus.proxies.Interface")
LOCAL = frozenset({"connect_to_signal", "get_dbus_method", "get_object_path", "get_bus_name", "close",
                   "add_signal_receiver", "remove_signal_receiver", "get_unique_name"})
"""Methods that register a handler or read what the object already holds: no round trip."""

DBUS_PYTHON = Vocabulary(
    calls={bus: (S, CONNECT) for bus in BUSES},
    families=(
        Family(BUSES, {"get_object": S, "get_name_owner": S, "list_names": S, "name_has_owner": S,
                       "call_blocking": S, "request_name": S, "release_name": S}, PROXY),
        Family(PROXIES, {"*": S}, CALLS, except_=LOCAL),
    ),
    returns={
        **{bus: bus for bus in BUSES},
        **{f"{bus}.get_object": "dbus.proxies.ProxyObject" for bus in BUSES},
        "dbus.Interface": "dbus.Interface",
        "dbus.proxies.Interface": "dbus.Interface",
    },
)
