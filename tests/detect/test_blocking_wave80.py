"""check blocking: the kinds held-out wave 80 (issue 17; trading, crypto and market-data services) left, fixed by kind.

F1: a streaming client's method handed a ``callback=`` only subscribes (the callback runs later), no request.
M1: an instance whose class a conditional expression picks (``A if flag else B``) has either class's methods.
M2: binance-connector's REST classes (``Spot``, ``UMFutures``, ``CMFutures``) send a ``requests`` call per method.
M3: sqlite3's ``Cursor.execute`` returns the cursor, so the value it hands back fetches rows like the cursor.
M4: ccxt's balance helpers (``fetch_free_balance``...) call ``fetch_balance``.
M5: ``run()`` of binance-connector's websocket client (a thread) called directly runs its socket loop in the caller.
Reach: a global a package's ``__init__`` re-exports under its submodule's name is the global, not the module.
Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this test.
"""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- F1: subscribing with a callback -----------------------------------------------------------------------------------

_STREAMS = """
    from fastapi import FastAPI
    from tickerfeed.live import TickerStreamClient, TickerRestClient

    app = FastAPI()
    feed = TickerStreamClient()
    rest = TickerRestClient()


    def on_tick(message):
        print(message)


    @app.post("/watch/{{symbol}}")
    async def watch(symbol: str):
        {call}
        return {{"ok": True}}
"""


def test_a_streaming_client_method_given_a_callback_only_subscribes(tmp_path):
    found = flagged(tmp_path, _STREAMS.format(call="feed.trades(symbol=symbol, callback=on_tick)"))
    assert found == set()


def test_a_streaming_client_method_without_a_callback_is_still_a_guessed_request(tmp_path):
    found = flagged(tmp_path, _STREAMS.format(call="feed.snapshot(symbol=symbol)"))
    assert {k for k, _ in found} == {"blocking_http"}


def test_a_rest_client_method_given_a_callback_is_still_a_guessed_request(tmp_path):
    found = flagged(tmp_path, _STREAMS.format(call="rest.download(symbol, callback=on_tick)"))
    assert found == {("blocking_http", "rest.download(symbol, callback=on_tick)")}


# -- M1: a class picked by a conditional expression --------------------------------------------------------------------

_PICKED = """
    from fastapi import FastAPI
    from brokerkit.live import Client
    from brokerkit.demo import Client as PaperClient


    class Broker:
        def __init__(self, paper: bool):
            self.paper = paper
            {build}

        async def positions(self):
            return self.client.all_positions()


    app = FastAPI()
    broker = Broker(True)


    @app.get("/positions")
    async def positions():
        return await broker.positions()
"""


def test_an_instance_of_a_class_picked_by_a_conditional_expression_is_typed(tmp_path):
    found = flagged(tmp_path, _PICKED.format(build="self.client = PaperClient if paper else Client\n"
                                                   "            self.client = self.client(key='k')"))
    assert found == {("blocking_http", "return self.client.all_positions()")}


def test_a_conditional_class_built_in_one_expression_is_typed(tmp_path):
    found = flagged(tmp_path, _PICKED.format(build="self.client = (PaperClient if paper else Client)(key='k')"))
    assert found == {("blocking_http", "return self.client.all_positions()")}


def test_a_conditional_class_never_built_stays_a_class(tmp_path):
    found = flagged(tmp_path, _PICKED.format(build="self.client = PaperClient if paper else Client"))
    assert found == set()  # all_positions of the class itself: an unbound method, nothing the guess can judge


# -- M2/M4: binance-connector and ccxt's balance helpers ---------------------------------------------------------------

def test_binance_connector_rest_classes_send_requests(tmp_path):
    found = flagged(tmp_path, """
        from fastapi import FastAPI
        from binance.spot import Spot
        from binance.um_futures import UMFutures
        from binance.cm_futures import CMFutures

        app = FastAPI()
        spot = Spot(api_key="k", api_secret="s")
        usdm = UMFutures(key="k", secret="s")
        coinm = CMFutures()


        @app.get("/book")
        async def book(symbol: str):
            account = spot.account()
            price = usdm.mark_price(symbol)
            depth = coinm.depth(symbol)
            return account, price, depth
    """)
    assert found == {("blocking_http", "account = spot.account()"), ("blocking_http", "price = usdm.mark_price(symbol)"),
                     ("blocking_http", "depth = coinm.depth(symbol)")}


def test_binance_connector_rest_calls_offloaded_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from fastapi import FastAPI
        from binance.um_futures import UMFutures

        app = FastAPI()
        usdm = UMFutures()


        @app.get("/price")
        async def price(symbol: str):
            return await asyncio.to_thread(usdm.mark_price, symbol)
    """)
    assert found == set()


def test_ccxt_balance_helpers_send_requests(tmp_path):
    found = flagged(tmp_path, """
        import ccxt
        from fastapi import FastAPI

        app = FastAPI()
        exchange = ccxt.kraken()


        @app.get("/free")
        async def free():
            spare = exchange.fetch_free_balance()
            held = exchange.fetchUsedBalance()
            return spare, held, exchange.currencies
    """)
    assert found == {("blocking_http", "spare = exchange.fetch_free_balance()"),
                     ("blocking_http", "held = exchange.fetchUsedBalance()")}


# -- M3: the cursor sqlite3's execute returns --------------------------------------------------------------------------

_SQLITE = """
    import sqlite3
    from fastapi import FastAPI

    app = FastAPI()
    cursor = sqlite3.connect("alerts.db").cursor()


    @app.get("/alerts")
    async def alerts():
        {body}
"""


def test_the_cursor_returned_by_execute_fetches_rows(tmp_path):
    found = flagged(tmp_path, _SQLITE.format(body="result = cursor.execute('SELECT * FROM alerts')\n"
                                                  "        return result.fetchall()"))
    assert found == {("blocking_db", "result = cursor.execute('SELECT * FROM alerts')"),
                     ("blocking_db", "return result.fetchall()")}


def test_rows_already_fetched_are_a_list(tmp_path):
    found = flagged(tmp_path, _SQLITE.format(body="rows = cursor.execute('SELECT * FROM alerts').fetchall()\n"
                                                  "        return rows.count(None)"))
    assert found == {("blocking_db", "rows = cursor.execute('SELECT * FROM alerts').fetchall()")}


# -- M5: a thread's run() called directly ------------------------------------------------------------------------------

def test_binance_websocket_client_run_blocks_and_its_subscriptions_do_not(tmp_path):
    found = flagged(tmp_path, """
        from fastapi import FastAPI
        from binance.websocket.um_futures.websocket_client import UMFuturesWebsocketClient

        app = FastAPI()


        def show(message):
            print(message)


        @app.post("/listen")
        async def listen(symbol: str):
            ws = UMFuturesWebsocketClient()
            ws.kline(id=1, symbol=symbol, interval="1m", callback=show)
            ws.run()
    """)
    assert found == {("blocking_socket_io", "ws.run()")}


# -- a package re-exporting an instance under its submodule's name -----------------------------------------------------

_EXPORTED = {
    "core/__init__.py": "from core.exchange import exchange\n\n__all__ = ['exchange']\n",
    "core/exchange.py": """
        from binance.um_futures import UMFutures


        class Exchange:
            def __init__(self):
                self.rest = UMFutures(key="k", secret="s")

            def positions(self):
                return self.rest.account()["positions"]


        exchange = Exchange()
    """,
}


def test_an_instance_a_package_re_exports_under_its_submodules_name_is_the_instance(tmp_path):
    found = flagged_package(tmp_path, {**_EXPORTED, "routes.py": """
        from fastapi import APIRouter
        from core import exchange

        router = APIRouter()


        @router.get("/positions")
        async def positions():
            return exchange.positions()
    """})
    assert found == {("core/exchange.py", "blocking_http", 'return self.rest.account()["positions"]')}


def test_the_submodule_imported_itself_is_the_module(tmp_path):
    found = flagged_package(tmp_path, {**_EXPORTED, "routes.py": """
        from fastapi import APIRouter
        import core.exchange

        router = APIRouter()


        @router.get("/positions")
        async def positions():
            return core.exchange.Exchange
    """})
    assert found == set()
