"""check blocking: kinds first seen on unseen services in wave 22 (issue 17) -- models run with Apple MLX or
tinygrad (weights loaded, a forward evaluated, a tensor realised), a library class built by its ``from_*``
constructor, a LangChain chain made by a ``create_*`` factory. Each blocker is found at its line; each healthy
look-alike (the offloaded call, a project's own class) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_mlx_weights_loaded_and_a_forward_evaluated_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        import mlx.core as mx
        import mlx.nn as nn
        from mlx_lm.tokenizer_utils import load_tokenizer

        class Runner:
            def __init__(self, net: nn.Module):
                self.net = net

            def step(self, tokens):
                return self.net(mx.array(tokens))

        async def load(folder, net: nn.Module):
            weights = mx.load(f"{folder}/model.safetensors")
            net.load_weights(list(weights.items()))
            mx.eval(net.parameters())
            return load_tokenizer(folder)

        async def answer(runner: Runner, tokens):
            return runner.step(tokens)
    """)
    assert found == {("blocking_file_io", 'weights = mx.load(f"{folder}/model.safetensors")'),
                     ("blocking_file_io", "net.load_weights(list(weights.items()))"),
                     ("blocking_cpu", "mx.eval(net.parameters())"),
                     ("blocking_file_io", "return load_tokenizer(folder)"),
                     ("blocking_cpu", "return self.net(mx.array(tokens))")}


def test_mlx_work_handed_to_a_thread_and_array_building_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import mlx.core as mx
        import mlx.nn as nn

        def forward(net: nn.Module, tokens):
            out = net(mx.array(tokens))
            mx.eval(out)
            return out

        async def answer(net: nn.Module, tokens):
            ids = mx.array(tokens)
            shape = ids.shape
            out = await asyncio.to_thread(forward, net, tokens)
            weights = await asyncio.to_thread(mx.load, "model.safetensors")
            return shape, out, weights
    """)
    assert found == set()


def test_tinygrad_weights_loaded_and_a_tensor_realised_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        from tinygrad import Tensor
        from tinygrad.nn.state import load_state_dict, safe_load

        async def warm(model, path):
            state = safe_load(path)
            load_state_dict(model, state)

        async def score(values):
            t = Tensor(values)
            return t.numpy()
    """)
    assert found == {("blocking_file_io", "state = safe_load(path)"),
                     ("blocking_file_io", "load_state_dict(model, state)"),
                     ("blocking_cpu", "return t.numpy()")}


def test_tinygrad_lazy_tensor_building_and_a_project_realize_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from tinygrad import Tensor

        class Plan:
            def realize(self):
                return "planned"

        async def score(values):
            t = Tensor(values)
            shaped = t.reshape(1, -1)
            plan = Plan().realize()
            host = await asyncio.to_thread(shaped.numpy)
            return plan, host
    """)
    assert found == set()


def test_a_library_class_built_by_its_from_constructor_and_a_chain_factory_block(tmp_path):
    found = flagged(tmp_path, """
        from langchain.chains import RetrievalQA, create_retrieval_chain

        qa = RetrievalQA.from_chain_type(llm=None, retriever=None)

        def make_chain(retriever, combine):
            return create_retrieval_chain(retriever, combine)

        async def ask(question):
            return qa.run(question)

        async def rag(retriever, combine, question):
            chain = make_chain(retriever, combine)
            return chain.invoke({"input": question})
    """)
    assert found == {("blocking_http", "return qa.run(question)"),
                     ("blocking_http", 'return chain.invoke({"input": question})')}


def test_a_project_class_from_constructor_and_an_offloaded_chain_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from langchain.chains import RetrievalQA

        class Answerer:
            @classmethod
            def from_settings(cls, settings):
                return cls()

            def run(self, question):
                return question.upper()

        qa = RetrievalQA.from_chain_type(llm=None, retriever=None)

        async def ask(question):
            local = Answerer.from_settings({})
            first = local.run(question)
            return first, await asyncio.to_thread(qa.run, question)
    """)
    assert found == set()


def _entry_calls(tmp_path, source):
    import textwrap

    from faultlib.detect.serving.blocking import analyze_path

    path = tmp_path / "svc.py"
    path.write_text(textwrap.dedent(source))
    report = analyze_path(path)
    return {f.location["line"]: {(c["function"], c["line"]) for c in f.evidence["entry_calls"]}
            for f in report.findings}


def test_every_line_where_a_coroutine_calls_into_a_blocker_is_named(tmp_path):
    found = _entry_calls(tmp_path, """
        import time

        def slow(x):
            time.sleep(x)

        async def first(x):
            slow(x)
            if x > 1:
                slow(x * 2)

        async def second(x):
            slow(x)
    """)
    assert found == {5: {("first", 8), ("first", 10), ("second", 13)}}


def test_an_offloaded_call_line_is_not_named_among_the_callers(tmp_path):
    found = _entry_calls(tmp_path, """
        import asyncio
        import time

        def slow(x):
            time.sleep(x)

        async def first(x):
            await asyncio.to_thread(slow, x)
            slow(x)
    """)
    assert found == {6: {("first", 10)}}


def test_a_community_pgvector_store_built_in_a_coroutine_blocks_a_project_one_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from langchain_community.vectorstores.pgvector import PGVector

        class Shelf:
            def __init__(self, url):
                self.url = url

        async def search(url, question, embeddings):
            shelf = Shelf(url)
            offloaded = await asyncio.to_thread(PGVector, collection_name="notes", connection_string=url,
                                                embedding_function=embeddings)
            store = PGVector(collection_name="docs", connection_string=url, embedding_function=embeddings)
            return shelf, offloaded, store
    """)
    assert found == {("blocking_db", 'store = PGVector(collection_name="docs", connection_string=url, '
                                     'embedding_function=embeddings)')}
