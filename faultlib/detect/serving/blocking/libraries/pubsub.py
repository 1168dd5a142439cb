"""Google Cloud Pub/Sub's synchronous clients (``google.cloud.pubsub_v1.PublisherClient``, ``SubscriberClient``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). The
clients' administrative and pull calls are unary gRPC requests that wait for the answer in the calling thread;
``publish`` only adds the message to a batch that the client's own thread sends and returns a future at once (it
blocks only in that future's ``result``), ``subscribe`` starts the streaming pull in the client's threads and
returns a future that blocks in ``result`` until the stream ends, and the ``*_path`` helpers only format resource
names (``projects/{project}/topics/{topic}``). Held-out wave 59: a Pub/Sub model server whose class-name guess
reported ``topic_path``, ``subscription_path`` and ``publish`` (3 false alarms) beside the real ``pull`` and
``acknowledge``.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"

PUBLISHER = ("https://cloud.google.com/python/docs/reference/pubsub/latest/google.cloud.pubsub_v1.publisher.client."
             "Client (create_topic, get_topic, list_topics... are requests; publish returns a Future without "
             "waiting; topic_path formats a name)")
SUBSCRIBER = ("https://cloud.google.com/python/docs/reference/pubsub/latest/google.cloud.pubsub_v1.subscriber."
              "client.Client (pull, acknowledge, modify_ack_deadline... are synchronous requests; subscribe returns "
              "a StreamingPullFuture; subscription_path formats a name)")
FUTURES = ("https://cloud.google.com/python/docs/reference/pubsub/latest/google.cloud.pubsub_v1.publisher.futures."
           "Future (result blocks until the message is published or the timeout passes)")

_PUBLISHERS = ("google.cloud.pubsub_v1.PublisherClient", "google.cloud.pubsub.PublisherClient",
               "google.cloud.pubsub_v1.publisher.client.Client")
_SUBSCRIBERS = ("google.cloud.pubsub_v1.SubscriberClient", "google.cloud.pubsub.SubscriberClient",
                "google.cloud.pubsub_v1.subscriber.client.Client")
_PUBLISH_FUTURE = "google.cloud.pubsub_v1.publisher.futures.Future"
_PULL_FUTURE = "google.cloud.pubsub_v1.subscriber.futures.StreamingPullFuture"
_IAM = ("get_iam_policy", "set_iam_policy", "test_iam_permissions")

PUBSUB = Vocabulary(
    families=(
        Family(_PUBLISHERS, {m: H for m in ("create_topic", "get_topic", "update_topic", "list_topics",
                                            "list_topic_subscriptions", "list_topic_snapshots", "delete_topic",
                                            "detach_subscription", *_IAM)}, PUBLISHER),
        Family(_SUBSCRIBERS, {m: H for m in ("pull", "acknowledge", "modify_ack_deadline", "create_subscription",
                                             "get_subscription", "update_subscription", "list_subscriptions",
                                             "delete_subscription", "modify_push_config", "get_snapshot",
                                             "list_snapshots", "create_snapshot", "update_snapshot",
                                             "delete_snapshot", "seek", *_IAM)}, SUBSCRIBER),
        Family((_PUBLISH_FUTURE, _PULL_FUTURE), {"result": H, "exception": H}, FUTURES),
    ),
    returns={**{f"{p}.publish": _PUBLISH_FUTURE for p in _PUBLISHERS},
             **{f"{s}.subscribe": _PULL_FUTURE for s in _SUBSCRIBERS}},
)
