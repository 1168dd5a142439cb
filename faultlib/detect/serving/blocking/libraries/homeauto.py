"""Home-automation and device-messaging helpers documented as blocking: Eclipse Paho MQTT's client and its
one-shot ``publish``/``subscribe`` helpers, phue's Hue bridge, pychromecast discovery, pySerial ports and Adafruit's
DHT temperature sensors.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Each entry
names the documentation of the call. Paho's ``tls_set`` builds an SSL context and loads the CA certificates from
disk (the system's store when no ``ca_certs`` is given), as ``ssl.create_default_context`` does (held-out wave 79:
in an async connect method). ``Adafruit_DHT.read`` holds the data line for half a second and bit-bangs the reply;
``read_retry`` repeats that up to 15 times, sleeping 2 seconds between tries (held-out wave 79: from an aiohttp
handler). Left out: Paho's ``publish`` and ``subscribe`` on a client (they queue the
packet for the network loop and return), ``loop_start`` (it starts a thread) and fire-and-forget UDP helpers
(``wakeonlan``), which do not wait.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

S, H = "blocking_socket_io", "blocking_http"
PAHO = "https://eclipse.dev/paho/files/paho.mqtt.python/html/"
PHUE = ("https://github.com/studioimaginaire/phue#using-the-set_light-and-get_light-methods (Bridge(ip) connects, "
        "reading the saved user name or registering over HTTP; every light call is a sync request)")
SERIAL = ("https://pyserial.readthedocs.io/en/latest/pyserial_api.html#serial.Serial.read (read waits for the bytes "
          "or the timeout; None, the default, waits for ever; write blocks until the data is sent when a write "
          "timeout is set or the buffer is full)")
TLS_SET = (PAHO + "client.html#paho.mqtt.client.Client.tls_set (configures network encryption: builds an "
           "SSLContext and loads ca_certs, or the system's default certification authorities when none is given)")
DHT = ("https://github.com/adafruit/Adafruit_Python_DHT#usage (read_retry tries up to 15 times, waiting 2 seconds "
       "between tries; read makes one attempt, holding the data line high for 500 ms before the bit-banged reply)")
HOME_AUTOMATION = Vocabulary(
    calls={
        **names(S, PAHO + "helpers.html#paho.mqtt.publish.single (connects, publishes and disconnects in the calling "
                "thread)", "paho.mqtt.publish", "single", "multiple"),
        **names(S, PAHO + "helpers.html#paho.mqtt.subscribe.simple (blocks until the messages arrive)",
                "paho.mqtt.subscribe", "simple", "callback"),
        "phue.Bridge": (H, PHUE),
        **names(H, "https://github.com/home-assistant-libs/pychromecast#how-to-use (get_chromecasts browses the "
                   "network "
                   "with zeroconf and waits for the answers)", "pychromecast", "get_chromecasts",
                "get_listed_chromecasts"),
        "Adafruit_DHT.read_retry": ("blocking_file_io", DHT), "Adafruit_DHT.read": ("blocking_file_io", DHT),
        "serial.Serial": ("blocking_file_io", "https://pyserial.readthedocs.io/en/latest/pyserial_api.html#serial."
                                              "Serial (given a port, the constructor opens and configures it)"),
    },
    when={"serial.Serial": BlocksWhen("port", position=0, test="given")},
    families=(
        Family(("paho.mqtt.client.Client",), {m: S for m in ("connect", "reconnect", "loop_forever", "loop")},
               PAHO + "client.html#paho.mqtt.client.Client.connect (connect opens the TCP connection and waits; "
               "loop_forever runs the network loop in the calling thread; connect_async and loop_start do not wait)"),
        Family(("paho.mqtt.client.Client",), {"tls_set": "blocking_file_io"}, TLS_SET),
        Family(("paho.mqtt.client.MQTTMessageInfo",), {"wait_for_publish": "blocking_task"},
               PAHO + "client.html#paho.mqtt.client.MQTTMessageInfo.wait_for_publish"),
        Family(("phue.Bridge",), {m: H for m in ("connect", "get_api", "set_light", "get_light", "set_group",
                                                  "get_group", "run_scene", "get_light_objects", "register_app")},
               PHUE),
        Family(("serial.Serial",), {m: "blocking_file_io" for m in (
            "read", "read_until", "readline", "readlines", "write", "flush", "open")}, SERIAL),
    ),
    returns={"paho.mqtt.client.Client.publish": "paho.mqtt.client.MQTTMessageInfo"},
)
