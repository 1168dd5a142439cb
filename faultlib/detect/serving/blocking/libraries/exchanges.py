"""Crypto exchanges' synchronous clients: ccxt's unified API methods and binance-connector's endpoint methods are
blocking REST requests.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).

ccxt: an instance of ``ccxt.<exchange>`` (``ccxt.binance()``, ``ccxt.Exchange`` annotations) makes its REST call
synchronously in every unified API method (``fetch_ticker``, ``create_order``, ``load_markets``...); the
``ccxt.async_support`` and ``ccxt.pro`` classes are awaited coroutines and are not named here (exact type names,
so ``ccxt.async_support.binance`` is never owned). The exchanges are listed by id (the most used of ccxt's list);
``getattr(ccxt, exchange_id)`` leaves the type unknown.

binance-connector (``binance.spot.Spot``) and binance-futures-connector (``binance.um_futures.UMFutures``,
``binance.cm_futures.CMFutures``): every public method of these classes is one endpoint, sent with ``requests`` and
waited for (their common base ``binance.api.API`` sends through ``requests.Session``). Their websocket clients
(``binance.websocket...``) subscribe a stream with a ``callback=`` and deliver messages on their own thread; the
callback-style clients are ``threading.Thread`` subclasses whose ``run()`` (called in place of ``start()``) runs the
socket loop -- twisted's reactor -- in the caller until the client stops.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
CCXT = ("https://docs.ccxt.com/#/README?id=synchronous-vs-asynchronous-calls (the ccxt package's exchange classes "
        "call the REST API synchronously; ccxt.async_support and ccxt.pro are the asyncio twins)")

EXCHANGES = ("binance", "binanceusdm", "binancecoinm", "binanceus", "bybit", "okx", "okx5", "kraken", "krakenfutures",
             "coinbase", "coinbaseexchange", "coinbasepro", "kucoin", "kucoinfutures", "bitget", "gate", "gateio",
             "huobi", "htx", "mexc", "bitfinex", "bitmex", "bitstamp", "gemini", "deribit", "phemex", "bingx",
             "cryptocom", "poloniex", "bittrex", "ftx", "upbit", "bithumb", "bitmart", "bitvavo", "hitbtc",
             "coinex", "woo", "hyperliquid", "lbank", "ascendex", "bitflyer", "bitso", "zaif", "coincheck",
             "ndax", "probit", "whitebit", "exmo", "bitrue", "blofin", "delta", "apex")
"""Exchange ids of ccxt's sync classes named as types (``ccxt.<id>``); the full list is ``ccxt.exchanges``."""
UNIFIED = ("load_markets", "fetch_markets", "fetch_currencies", "fetch_ticker", "fetch_tickers", "fetch_order_book",
           "fetch_l2_order_book", "fetch_ohlcv", "fetch_trades", "fetch_my_trades", "fetch_balance", "fetch_order",
           "fetch_orders", "fetch_open_orders", "fetch_closed_orders", "fetch_canceled_orders", "create_order",
           "create_market_order", "create_limit_order", "create_market_buy_order", "create_market_sell_order",
           "create_limit_buy_order", "create_limit_sell_order", "create_stop_order", "edit_order", "cancel_order",
           "cancel_all_orders", "fetch_positions", "fetch_position", "set_leverage", "set_margin_mode",
           "fetch_funding_rate", "fetch_funding_rates", "fetch_deposit_address", "withdraw", "fetch_deposits",
           "fetch_withdrawals", "fetch_ledger", "fetch_status", "fetch_time", "fetch_trading_fees", "transfer",
           "fetch_bids_asks", "fetch_mark_ohlcv", "fetch_open_interest", "borrow_margin", "repay_margin",
           "borrow_cross_margin", "repay_cross_margin", "borrow_isolated_margin", "repay_isolated_margin",
           "fetch_free_balance", "fetch_used_balance", "fetch_total_balance", "fetch_partial_balance")
"""ccxt's unified API methods, each an HTTP request (``load_markets`` fetches the markets the first time; the balance
helpers ``fetch_free_balance``/``fetch_used_balance``/``fetch_total_balance`` call ``fetch_balance`` and keep one part:
https://docs.ccxt.com/#/README?id=account-balance)."""


def _camel(name: str) -> str:
    """ccxt's camelCase alias of a unified method (``fetch_ohlcv`` -> ``fetchOHLCV`` is spelled both ways)."""
    head, *rest = name.split("_")
    return head + "".join(part.upper() if part == "ohlcv" else part.capitalize() for part in rest)


METHODS = {**{m: H for m in UNIFIED}, **{_camel(m): H for m in UNIFIED}}
"""Every unified method under both of ccxt's spellings (snake_case and the camelCase the manual uses)."""

CRYPTO_EXCHANGES = Vocabulary(
    families=(Family(("ccxt.Exchange", "ccxt.base.exchange.Exchange", *(f"ccxt.{e}" for e in EXCHANGES)),
                     METHODS, CCXT),),
    returns={f"ccxt.{e}": f"ccxt.{e}" for e in EXCHANGES},
)

IMPLICIT = ("https://docs.ccxt.com/#/README?id=implicit-api-methods (every endpoint of an exchange's REST API is a "
            "method named from its API section, HTTP verb and path -- public_get_ticker/publicGetTicker, "
            "sapi_post_margin_order_oco -- each a synchronous HTTP request on the ccxt package's classes)")
_SECTIONS = r"(?:public|private|sapi|fapi|dapi|eapi|papi|wapi|v\d+|spot|futures|swap|margin|contract)"
ENDPOINTS = {_SECTIONS + r"[a-z0-9]*(?:_[a-z0-9]+)*_(?:get|post|put|delete|patch)_[a-z0-9_]+": H,
             _SECTIONS + r"[A-Za-z0-9]*?(?:Get|Post|Put|Delete|Patch)[A-Z0-9][A-Za-z0-9]*": H}
"""ccxt's implicit endpoint methods in both spellings (the API section first: ``public``, ``private``, ``sapi``,
``fapiPrivate``, ``v2``...; then the verb; then the path), so the exchange's own helpers -- ``market``,
``price_to_precision``, ``parse_ticker`` -- never match."""

CRYPTO_EXCHANGES = Vocabulary(
    families=(*CRYPTO_EXCHANGES.families,
              Family(CRYPTO_EXCHANGES.families[0].types, {}, IMPLICIT, patterns=ENDPOINTS)),
    returns={**CRYPTO_EXCHANGES.returns, "ccxt.*": "ccxt.Exchange"},
)
"""The unified methods above, the implicit endpoint methods, and ``getattr(ccxt, exchange_id)(...)`` (any id looked
up on the sync package builds a sync exchange: :mod:`~faultlib.detect.serving.blocking.dynamic_classes`)."""

BINANCE = ("https://binance-connector.readthedocs.io/en/stable/ and https://binance-futures-connector.readthedocs.io/ "
           "(binance.api.API.send_request: each endpoint method calls requests.Session and returns the decoded JSON "
           "body)")
BINANCE_STREAMS = ("https://github.com/binance/binance-futures-connector-python/blob/main/binance/websocket/"
                   "binance_socket_manager.py (BinanceSocketManager is a threading.Thread; its run() is the socket's "
                   "read loop -- reactor.run() in the callback-style releases -- so calling it directly never returns "
                   "while the stream is open)")
BINANCE_REST = ("binance.spot.Spot", "binance.um_futures.UMFutures", "binance.cm_futures.CMFutures", "binance.api.API")
BINANCE_WEBSOCKETS = ("binance.websocket.",)

CRYPTO_EXCHANGES = Vocabulary(
    families=(*CRYPTO_EXCHANGES.families,
              Family(BINANCE_REST, {"*": H}, BINANCE),
              Family(BINANCE_WEBSOCKETS, {"run": "blocking_socket_io", "join": "blocking_socket_io"}, BINANCE_STREAMS,
                     prefix=True)),
    returns={**CRYPTO_EXCHANGES.returns, **{t: t for t in BINANCE_REST}},
)
"""With binance-connector's REST classes (every method a request) and its websocket clients (only ``run`` and
``join`` wait; a subscription with a callback returns at once)."""
