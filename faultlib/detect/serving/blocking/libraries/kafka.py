"""Kafka over kafka-python's synchronous clients (``kafka.KafkaProducer``, ``kafka.KafkaConsumer``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
kafka-python's clients do their network I/O in the calling thread or wait for their own I/O thread: building a
producer or consumer connects to the bootstrap servers (and checks the broker's API version), ``flush``/``close``
wait for the buffered records to be sent, the future ``send`` returns blocks in ``get`` until the broker
acknowledges, and a consumer's ``poll``/``commit``/iteration wait on the broker. ``aiokafka`` is the async twin.
``send`` itself only buffers the record in the usual case and is left out.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

S = "blocking_socket_io"

PRODUCER = ("https://kafka-python.readthedocs.io/en/master/apidocs/KafkaProducer.html (the constructor bootstraps "
            "the cluster connection; flush and close block until pending records are sent; send returns a "
            "FutureRecordMetadata whose get(timeout) blocks for the acknowledgement)")
CONSUMER = ("https://kafka-python.readthedocs.io/en/master/apidocs/KafkaConsumer.html (poll blocks up to "
            "timeout_ms; iterating blocks for the next message; commit is a synchronous request)")

_PRODUCERS = ("kafka.KafkaProducer", "kafka.producer.KafkaProducer", "kafka.producer.kafka.KafkaProducer")
_CONSUMERS = ("kafka.KafkaConsumer", "kafka.consumer.KafkaConsumer", "kafka.consumer.group.KafkaConsumer")
_FUTURE = "kafka.producer.future.FutureRecordMetadata"

KAFKA = Vocabulary(
    families=(
        Family(_PRODUCERS, {m: S for m in ("__init__", "flush", "close", "partitions_for")}, PRODUCER),
        Family((_FUTURE,), {"get": S}, PRODUCER),
        Family(_CONSUMERS, {m: S for m in ("__init__", "poll", "commit", "close", "__next__", "position",
                                           "committed", "topics", "partitions_for_topic")}, CONSUMER),
    ),
    returns={f"{p}.send": _FUTURE for p in _PRODUCERS},
)
