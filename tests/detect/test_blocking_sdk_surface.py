"""check blocking: the sync surface of LLM clients, agent frameworks, messaging, cloud and home-automation SDKs
filled from their documentation (issue 17). Each sync call inside an ``async def`` is reported at its line; the
documented async twin (``acompletion``, ``ainvoke``, ``aquery``, ``kickoff_async``, ``AsyncTeleBot``, ``aio``
clients) and the offloaded call stay silent, and so do builders that send nothing. Every example is written for
this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_llm_clients_tokenizers_graphs_and_indexes_block_and_their_async_twins_do_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio, litellm, tiktoken
        from anthropic import AnthropicBedrock, AsyncAnthropicBedrock
        from langgraph.graph import StateGraph
        from llama_index.core import VectorStoreIndex
        from vertexai.generative_models import GenerativeModel

        async def answer(prompt):
            reply = litellm.completion(model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}])
            again = await litellm.acompletion(model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}])
            return reply, again

        async def count(text):
            enc = tiktoken.get_encoding("cl100k_base")
            return len(enc.encode(text))

        async def bedrock(prompt):
            sync_reply = AnthropicBedrock().messages.create(model="m", max_tokens=8, messages=[])
            async_reply = await AsyncAnthropicBedrock().messages.create(model="m", max_tokens=8, messages=[])
            return sync_reply, async_reply

        async def vertex(prompt):
            model = GenerativeModel("gemini-1.5-flash")
            return model.generate_content(prompt), await model.generate_content_async(prompt)

        async def run_graph(builder: StateGraph, state):
            graph = builder.compile()
            first = graph.invoke(state)
            second = await graph.ainvoke(state)
            return first, second

        async def ask(docs, question):
            index = VectorStoreIndex.from_documents(docs)
            engine = index.as_query_engine()
            return engine.query(question), await engine.aquery(question)

        async def answer_off_loop(prompt):
            return await asyncio.to_thread(litellm.completion, model="m", messages=[])
    """)
    assert found == {
        ("blocking_http", 'reply = litellm.completion(model="gpt-4o-mini", messages=[{"role": "user", '
                          '"content": prompt}])'),
        ("blocking_file_io", 'enc = tiktoken.get_encoding("cl100k_base")'),
        ("blocking_http", 'sync_reply = AnthropicBedrock().messages.create(model="m", max_tokens=8, messages=[])'),
        ("blocking_http", "return model.generate_content(prompt), await model.generate_content_async(prompt)"),
        ("blocking_http", "first = graph.invoke(state)"),
        ("blocking_http", "index = VectorStoreIndex.from_documents(docs)"),
        ("blocking_http", "return engine.query(question), await engine.aquery(question)"),
    }


def test_agent_frameworks_sync_entry_points_block(tmp_path):
    found = flagged(tmp_path, """
        import dspy
        from autogen import ConversableAgent
        from crewai import Crew
        from pydantic_ai import Agent
        from smolagents import CodeAgent

        async def crew(agents, tasks):
            team = Crew(agents=agents, tasks=tasks)
            done = team.kickoff(inputs={})
            later = await team.kickoff_async(inputs={})
            return done, later

        async def pair(user: ConversableAgent, helper: ConversableAgent):
            user.initiate_chat(helper, message="hi")
            await user.a_initiate_chat(helper, message="hi")

        async def tools(model):
            return CodeAgent(tools=[], model=model).run("sum 1 and 2")

        async def typed():
            agent = Agent("openai:gpt-4o")
            sync_result = agent.run_sync("hello")
            return sync_result, await agent.run("hello")

        async def predict(question):
            qa = dspy.ChainOfThought("question -> answer")
            return qa(question=question), await qa.acall(question=question)
    """)
    assert found == {
        ("blocking_http", "done = team.kickoff(inputs={})"),
        ("blocking_http", 'user.initiate_chat(helper, message="hi")'),
        ("blocking_http", 'return CodeAgent(tools=[], model=model).run("sum 1 and 2")'),
        ("blocking_http", 'sync_result = agent.run_sync("hello")'),
        ("blocking_http", "return qa(question=question), await qa.acall(question=question)"),
    }


def test_messaging_clients_block_and_their_builders_and_async_bots_do_not(tmp_path):
    found = flagged(tmp_path, """
        import praw, telebot
        from telebot.async_telebot import AsyncTeleBot
        from discord import SyncWebhook
        from firebase_admin import auth, messaging

        BOT = telebot.TeleBot("token")
        ABOT = AsyncTeleBot("token")

        async def notify(chat_id, text):
            BOT.send_message(chat_id, text)
            await ABOT.send_message(chat_id, text)

        async def post(reddit: praw.Reddit, title):
            sub = reddit.subreddit("test")
            return sub.submit(title, selftext="")

        async def hook(url, text):
            SyncWebhook.from_url(url).send(content=text)

        async def push(token, id_token):
            message = messaging.Message(token=token)
            messaging.send(message)
            return auth.verify_id_token(id_token)
    """)
    assert found == {
        ("blocking_http", "BOT.send_message(chat_id, text)"),
        ("blocking_http", 'return sub.submit(title, selftext="")'),
        ("blocking_http", "SyncWebhook.from_url(url).send(content=text)"),
        ("blocking_http", "messaging.send(message)"),
        ("blocking_http", "return auth.verify_id_token(id_token)"),
    }


def test_cloud_and_home_automation_clients_block_where_documented(tmp_path):
    found = flagged(tmp_path, """
        import s3fs, serial
        import paho.mqtt.client as mqtt
        import paho.mqtt.publish as publish
        from azure.cosmos import CosmosClient
        from azure.identity import DefaultAzureCredential

        async def read_order(url, key, order_id):
            container = CosmosClient(url, key).get_database_client("shop").get_container_client("orders")
            return container.read_item(order_id, partition_key=order_id)

        async def token():
            return DefaultAzureCredential().get_token("https://management.azure.com/.default")

        async def listing(bucket):
            fs = s3fs.S3FileSystem(anon=True)
            return fs.ls(bucket)

        async def mqtt_send(host, payload):
            client = mqtt.Client()
            client.connect(host)
            client.publish("home/lamp", payload)
            publish.single("home/lamp", payload, hostname=host)

        async def sensor(port):
            line = serial.Serial(port, 9600)
            return line.readline()
    """)
    assert found == {
        ("blocking_http", "return container.read_item(order_id, partition_key=order_id)"),
        ("blocking_http", 'return DefaultAzureCredential().get_token("https://management.azure.com/.default")'),
        ("blocking_http", "return fs.ls(bucket)"),
        ("blocking_socket_io", "client.connect(host)"),
        ("blocking_socket_io", 'publish.single("home/lamp", payload, hostname=host)'),
        ("blocking_file_io", "line = serial.Serial(port, 9600)"),
        ("blocking_file_io", "return line.readline()"),
    }


def test_an_azure_speech_future_blocks_where_it_is_waited_for_not_where_it_is_started(tmp_path):
    found = flagged(tmp_path, """
        import azure.cognitiveservices.speech as speechsdk
        from mastodon import Mastodon

        async def say(config, text):
            synth = speechsdk.SpeechSynthesizer(speech_config=config)
            pending = synth.speak_text_async(text)
            done = synth.speak_text(text)
            return pending.get(), done

        async def toot(token, text):
            return Mastodon(access_token=token).status_post(text)
    """)
    assert found == {
        ("blocking_http", "done = synth.speak_text(text)"),
        ("blocking_task", "return pending.get(), done"),
        ("blocking_http", "return Mastodon(access_token=token).status_post(text)"),
    }


def test_django_mail_sent_from_an_async_view_blocks_and_a_message_built_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from django.core.mail import EmailMessage, send_mail

        async def welcome(address):
            send_mail("Welcome", "Hello", "team@example.org", [address])
            note = EmailMessage("Receipt", "Thanks", "team@example.org", [address])
            note.send()
            await asyncio.to_thread(send_mail, "Copy", "Hello", "team@example.org", [address])
    """)
    assert found == {
        ("blocking_socket_io", 'send_mail("Welcome", "Hello", "team@example.org", [address])'),
        ("blocking_socket_io", "note.send()"),
    }
