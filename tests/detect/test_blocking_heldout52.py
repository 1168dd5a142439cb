"""check blocking: the kinds held-out wave 52 (issue 17; workflow-engine samples streaming through a contrib client,
a trading bot's cached frames, a Bluetooth bridge's done callbacks) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- an asyncio-first SDK's *Client classes are not guessed synchronous ----------------------------------------------


def test_a_factory_of_an_asyncio_first_sdks_client_is_no_network_call(tmp_path):
    found = flagged(tmp_path, """
        from temporalio.client import Client
        from temporalio.contrib.workflow_streams import WorkflowStreamClient

        async def follow(address, workflow_id):
            client = await Client.connect(address)
            stream = WorkflowStreamClient.create(client, workflow_id)
            ticks = stream.topic("ticks")
            return ticks
    """)
    assert not any("WorkflowStreamClient" in line or "stream.topic" in line for _, line in found)


def test_an_unknown_vendors_client_method_is_still_guessed_a_network_call(tmp_path):
    found = flagged(tmp_path, """
        from weatherapi import ForecastClient

        async def forecast(city):
            return ForecastClient().query(city)
    """)
    assert ("blocking_http", "return ForecastClient().query(city)") in found


# -- pandas' feather and HDF5 readers, and a frame method chain that ends in a writer --------------------------------


def test_pandas_feather_and_hdf_readers_read_the_disk(tmp_path):
    found = flagged(tmp_path, """
        import pandas as pd
        from pandas import read_feather

        async def cached(name):
            a = read_feather(name + ".feather")
            b = pd.read_hdf(name + ".h5", key="rows")
            return a, b
    """)
    assert ("blocking_file_io", 'a = read_feather(name + ".feather")') in found
    assert ("blocking_file_io", 'b = pd.read_hdf(name + ".h5", key="rows")') in found


def test_a_frame_built_in_memory_is_no_disk_read(tmp_path):
    found = flagged(tmp_path, """
        import pandas as pd

        async def table(rows):
            return pd.DataFrame(rows).reset_index(drop=True)
    """)
    assert not found


def test_a_writer_at_the_end_of_a_frame_method_chain_writes_the_disk(tmp_path):
    found = flagged(tmp_path, """
        from pandas import DataFrame

        def store(rows: DataFrame, target: str) -> None:
            rows.reset_index(drop=True).to_feather(target)

        async def save(rows: DataFrame):
            store(rows, "rows.feather")
    """)
    assert ("blocking_file_io", "rows.reset_index(drop=True).to_feather(target)") in found


def test_a_frame_method_chain_that_ends_in_memory_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from pandas import DataFrame

        async def summary(rows: DataFrame):
            return rows.reset_index(drop=True).to_dict()
    """)
    assert not found


# -- a future's result read inside its own done callback is already there ---------------------------------------------


def test_a_result_read_inside_the_futures_done_callback_does_not_wait(tmp_path):
    found = flagged(tmp_path, """
        from concurrent.futures import Future, ThreadPoolExecutor

        pool = ThreadPoolExecutor()

        async def start(job):
            fut = pool.submit(job)

            def finished(done: Future) -> None:
                print(done.result(), done.exception())

            fut.add_done_callback(finished)
    """)
    assert not any("done.result()" in line for _, line in found)


def test_a_result_read_outside_a_done_callback_still_waits(tmp_path):
    found = flagged(tmp_path, """
        from concurrent.futures import Future, ThreadPoolExecutor

        pool = ThreadPoolExecutor()

        def outcome(fut: Future):
            return fut.result()

        async def run(job):
            return outcome(pool.submit(job))
    """)
    assert ("blocking_task", "return fut.result()") in found


def test_a_done_callback_that_waits_on_another_future_still_waits(tmp_path):
    found = flagged(tmp_path, """
        from concurrent.futures import Future, ThreadPoolExecutor

        pool = ThreadPoolExecutor()

        async def start(first, second):
            fut = pool.submit(first)
            other: Future = pool.submit(second)

            def finished(done: Future) -> None:
                print(other.result())

            fut.add_done_callback(finished)
    """)
    assert ("blocking_task", "print(other.result())") in found


def test_a_method_handed_as_done_callback_reads_its_finished_future(tmp_path):
    found = flagged(tmp_path, """
        from concurrent.futures import Future, ThreadPoolExecutor

        class Runner:
            def __init__(self):
                self.pool = ThreadPoolExecutor()

            def report(self, done: Future) -> None:
                print(done.result())

            async def start(self, job):
                self.pool.submit(job).add_done_callback(self.report)
    """)
    assert not any("done.result()" in line for _, line in found)
