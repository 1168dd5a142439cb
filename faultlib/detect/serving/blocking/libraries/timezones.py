"""Time-zone lookups that read the tz database from disk: ``pytz.timezone``, ``dateutil.tz.gettz`` and
``zoneinfo.ZoneInfo``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).

Time zones: ``pytz.timezone(name)``, ``dateutil.tz.gettz(name)`` and ``zoneinfo.ZoneInfo(name)`` open and parse the
zone's TZif file the first time a key is asked for. Home Assistant's developer documentation lists them as blocking
calls in the event loop and provides ``dt_util.async_get_time_zone`` (aiozoneinfo) to build them in the executor.
The libraries cache what they loaded (``ZoneInfo``'s constructor returns the cached object for a key already
built, pytz and ``gettz`` keep their own caches), so a repeated lookup is a dict hit; the entries still report
every call on the loop, as Home Assistant's loop check does: which call comes first is not known statically.
``datetime.timezone``, ``pytz.utc``/``pytz.UTC`` and ``dateutil.tz.tzutc()`` read nothing and are other names.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

F = "blocking_file_io"
HA_ZONEINFO = ("https://developers.home-assistant.io/blog/2024/05/19/fix_zoneinfo_blocking_io (constructing a "
               "time zone may load its file from disk when the key is not cached; dt_util.async_get_time_zone is "
               "the loop-safe twin) and https://developers.home-assistant.io/docs/asyncio_blocking_operations/#open")
PYTHON_ZONEINFO = ("https://docs.python.org/3/library/zoneinfo.html#zoneinfo.ZoneInfo (the constructor loads the "
                   "key's data from the TZPATH or the tzdata package; a key already built comes from the cache) and "
                   + HA_ZONEINFO)
PYTZ = "https://pythonhosted.org/pytz/ (timezone(name) opens the zone file in pytz/zoneinfo); " + HA_ZONEINFO
DATEUTIL = ("https://dateutil.readthedocs.io/en/stable/tz.html#dateutil.tz.gettz (gettz(name) reads the TZif file "
            "from the system zoneinfo directories; cached per name); " + HA_ZONEINFO)

TIME_ZONES = Vocabulary(calls={
    "pytz.timezone": (F, PYTZ),
    "dateutil.tz.gettz": (F, DATEUTIL),
    "dateutil.tz.tz.gettz": (F, DATEUTIL),
    "zoneinfo.ZoneInfo": (F, PYTHON_ZONEINFO),
    "backports.zoneinfo.ZoneInfo": (F, PYTHON_ZONEINFO),
})
