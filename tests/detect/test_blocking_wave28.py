"""check blocking: kinds first seen on unseen services in wave 28 (issue 17). Each blocker is found at its line;
each healthy look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_karton_backend_state_and_producer_calls_block(tmp_path):
    found = flagged(tmp_path, """
        from karton.core import Producer, Task
        from karton.core.backend import KartonBackend
        from karton.core.config import Config
        from karton.core.inspect import KartonState

        queue = Producer(identity="web")

        def list_modules():
            backend = KartonBackend(config=Config())
            return [bind.identity for bind in backend.get_binds()]

        async def purge(job_id):
            backend = KartonBackend(config=Config())
            for task in backend.get_all_tasks():
                if task.root_uid == job_id:
                    backend.delete_task(task)

        async def overview():
            state = KartonState(backend=KartonBackend(config=Config()))
            return list_modules(), len(state.queues)

        async def submit(target):
            task = Task({"type": "new"})
            task.add_payload("target", target)
            queue.send_task(task)
    """)
    assert ("blocking_db", "backend = KartonBackend(config=Config())") in found
    assert ("blocking_db", "return [bind.identity for bind in backend.get_binds()]") in found
    assert ("blocking_db", "for task in backend.get_all_tasks():") in found
    assert ("blocking_db", "backend.delete_task(task)") in found
    assert ("blocking_db", "state = KartonState(backend=KartonBackend(config=Config()))") in found
    assert ("blocking_db", "queue.send_task(task)") in found


def test_karton_from_a_thread_and_task_building_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from karton.core import Task
        from karton.core.backend import KartonBackend
        from karton.core.config import Config

        def purge(job_id):
            backend = KartonBackend(config=Config())
            for task in backend.get_all_tasks():
                if task.root_uid == job_id:
                    backend.delete_task(task)

        async def purge_endpoint(job_id):
            await asyncio.to_thread(purge, job_id)

        async def describe(target):
            task = Task({"type": "new"})
            task.add_payload("target", target)
            return task.headers
    """)
    assert found == set()
