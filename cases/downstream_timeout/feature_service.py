"""The downstream feature service of downstream_timeout: an aiohttp server holding the
breast_cancer feature table (scikit-learn's copy of the Wisconsin diagnostic data set).

    GET /features/{id}  ->  200 {"id": 17, "features": [30 floats], "run_queue_wait_ms": 0.4}
                        |   404 {"status": "not_found"}
    GET /healthz        ->  200 {"status": "ok", "rows": 569}

``run_queue_wait_ms``: how long the serving thread (the event loop's) waited for a CPU since its previous
answer (:func:`faultlib.runqueue.run_queue_wait_ms`; null where the kernel does not count it). Between two
answers it sleeps, waiting for the next request; so it is this request's share: the wake-up on its arrival
and the handling, which a loaded machine lengthens (the model service passes it on to the client).

Run by the repro as a separate process (``--port 0``: a free port, printed as the first line
``listening HOST:PORT`` on stdout), or as the ``feature-service`` container of compose.yaml.
Stops cleanly on SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import signal

from aiohttp import web
from sklearn.datasets import load_breast_cancer

from faultlib.runqueue import run_queue_wait_ms


def build_app() -> web.Application:
    table = load_breast_cancer().data
    last_reading = [run_queue_wait_ms()]

    def waited_since_last_answer() -> float | None:
        now, before = run_queue_wait_ms(), last_reading[0]
        last_reading[0] = now
        return None if now is None or before is None else round(now - before, 3)

    async def features(request: web.Request) -> web.Response:
        try:
            row = int(request.match_info["id"])
        except ValueError:
            return web.json_response({"status": "bad_request", "error": "id must be an integer"}, status=400)
        if not 0 <= row < len(table):
            return web.json_response({"status": "not_found", "id": row}, status=404)
        return web.json_response({"id": row, "features": table[row].tolist(),
                                  "run_queue_wait_ms": waited_since_last_answer()})

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "rows": len(table)})

    app = web.Application()
    app.add_routes([web.get("/features/{id}", features), web.get("/healthz", healthz)])
    return app


async def serve(host: str, port: int) -> None:
    runner = web.AppRunner(build_app(), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    bound_host, bound_port = runner.addresses[0][:2]
    print(f"listening {bound_host}:{bound_port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081, help="TCP port; 0 picks a free one")
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
