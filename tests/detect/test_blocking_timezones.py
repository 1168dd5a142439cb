"""check blocking: time-zone lookups that read the tz database (pytz, dateutil, zoneinfo) and ccxt's synchronous
exchange clients. Each blocker is found at its line; each look-alike (the async twins, off-loop calls, names that
read nothing) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_time_zone_lookups_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        import pytz
        from dateutil import tz
        from zoneinfo import ZoneInfo

        class Tariff:
            async def refresh(self, region, hass):
                market = pytz.timezone("Europe/Oslo")
                local = tz.gettz(region)
                home = ZoneInfo(hass.config.time_zone)
                return market, local, home
    """)
    assert found == {("blocking_file_io", 'market = pytz.timezone("Europe/Oslo")'),
                     ("blocking_file_io", "local = tz.gettz(region)"),
                     ("blocking_file_io", "home = ZoneInfo(hass.config.time_zone)")}


def test_a_helper_reached_from_the_loop_blocks_with_a_from_import(tmp_path):
    found = flagged(tmp_path, """
        from pytz import timezone

        def to_exchange_time(stamp):
            return stamp.astimezone(timezone("Asia/Tokyo"))

        async def on_tick(stamp):
            return to_exchange_time(stamp)
    """)
    assert found == {("blocking_file_io", 'return stamp.astimezone(timezone("Asia/Tokyo"))')}


def test_time_zones_that_read_nothing_or_are_loaded_off_the_loop_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import pytz
        from datetime import timezone, timedelta
        from dateutil import tz
        from zoneinfo import ZoneInfo

        LONDON = ZoneInfo("Europe/London")

        async def stamp(loop, name):
            utc = timezone.utc
            fixed = timezone(timedelta(hours=2))
            also_utc = pytz.utc
            dateutil_utc = tz.tzutc()
            zone = await loop.run_in_executor(None, pytz.timezone, name)
            other = await asyncio.to_thread(ZoneInfo, name)
            return utc, fixed, also_utc, dateutil_utc, zone, other, LONDON
    """)
    assert found == set()


def test_a_sync_ccxt_exchange_on_the_loop_blocks_even_when_its_close_is_awaited(tmp_path):
    found = flagged(tmp_path, """
        import ccxt

        class Trader:
            def __init__(self, exchange: ccxt.Exchange):
                self.exchange = exchange

            async def buy(self, symbol, amount):
                price = self.exchange.fetch_ticker(symbol)["last"]
                return self.exchange.create_order(symbol, "limit", "buy", amount, price)

        async def run(key):
            market = ccxt.kraken({"apiKey": key})
            book = market.fetch_order_book("BTC/EUR")
            candles = market.fetchOHLCV("BTC/EUR", "1d")
            await market.close()
            return book, candles, await Trader(market).buy("BTC/EUR", 1)
    """)
    assert found == {("blocking_http", 'price = self.exchange.fetch_ticker(symbol)["last"]'),
                     ("blocking_http", 'return self.exchange.create_order(symbol, "limit", "buy", amount, price)'),
                     ("blocking_http", 'book = market.fetch_order_book("BTC/EUR")'),
                     ("blocking_http", 'candles = market.fetchOHLCV("BTC/EUR", "1d")')}


def test_ccxt_async_support_and_pro_clients_and_off_loop_sync_calls_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import ccxt
        import ccxt.async_support as ccxt_async
        import ccxt.pro as ccxtpro

        def snapshot(symbol):
            return ccxt.bybit().fetch_ohlcv(symbol, "1h")

        async def watch(symbol):
            rest = ccxt_async.binance()
            ticker = await rest.fetch_ticker(symbol)
            await rest.close()
            stream = ccxtpro.okx()
            book = await stream.watch_order_book(symbol)
            candles = await asyncio.to_thread(snapshot, symbol)
            return ticker, book, candles
    """)
    assert found == set()
