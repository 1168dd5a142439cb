"""Platform APIs from Python: heroku3, whose every call on a connection, an app or its config vars is a synchronous
HTTPS request to the Heroku Platform API.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 41 (music and userbots reading logs, config vars and dyno quotas from their command handlers).
``heroku3.from_key(key)`` returns a ``Heroku`` connection (a ``requests`` session); ``Heroku.app(name)``, ``apps()``,
``account()`` fetch those resources, and an ``App``'s ``config()``, ``get_log()``, ``restart()``, ``buildpacks()``...
each send a request and wait for the answer. There is no async client.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
HEROKU3 = ("https://github.com/martyzz1/heroku3.py#usage (heroku3 wraps the Heroku Platform API with requests: "
           "every resource call, app.config(), app.get_log(), conn.apps(), is an HTTPS request)")
CONNECTION = "heroku3.api.Heroku"
APP = "heroku3.models.app.App"

HOSTING = Vocabulary(
    returns={"heroku3.from_key": CONNECTION, "heroku3.from_pass": CONNECTION, "heroku3.api.from_key": CONNECTION,
             f"{CONNECTION}.app": APP, f"{CONNECTION}.create_app": APP},
    families=(
        Family((CONNECTION, APP), {"*": H}, HEROKU3),
    ),
)
