"""Cloud SDKs: boto3, Google API clients; and passlib/bcrypt password hashing (Celery: ``libraries.taskqueues``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`);
each entry names the documentation that says the call blocks the calling thread.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

BOTO3 = "https://boto3.amazonaws.com/v1/documentation/api/latest/guide/clients.html"
GOOGLE_AUTH = "https://googleapis.dev/python/google-auth/latest/reference/"
BOTO3_CREDENTIALS = ("https://boto3.amazonaws.com/v1/documentation/api/latest/guide/credentials.html (a new "
                     "client resolves credentials down the provider chain -- files, then the instance metadata "
                     "service over HTTP -- and loads the service model from disk)")
RESOURCES = ("https://boto3.amazonaws.com/v1/documentation/api/latest/guide/resources.html (an action sends a "
             "request and returns its response; a sub-resource such as `dynamodb.Table(name)` is built without one)")
DYNAMODB = "https://boto3.amazonaws.com/v1/documentation/api/latest/guide/dynamodb.html"
DYNAMODB_ACTIONS = ("get_item", "put_item", "update_item", "delete_item", "query", "scan", "batch_get_item",
                    "batch_write_item", "transact_get_items", "transact_write_items")
"""The DynamoDB Table and service-resource actions (``DYNAMODB``), and the transactions of the resource's
``meta.client``: one request each."""
SQS_ACTIONS = ("send_message", "send_messages", "receive_messages", "delete_messages", "change_message_visibility",
               "purge")
"""SQS Queue and Message actions (https://boto3.amazonaws.com/v1/documentation/api/latest/guide/sqs.html)."""
CLOUD_AND_TASKS = Vocabulary(
    families=(
        Family(("botocore.client.BaseClient",), {"*": "blocking_http"}, BOTO3,
               except_=frozenset({"get_paginator", "get_waiter", "can_paginate", "generate_presigned_url",
                                  "generate_presigned_post", "close", "meta", "exceptions"})),
        Family(("boto3.resources.base.ServiceResource",),
               {m: "blocking_http" for m in ("upload_file", "download_file", "upload_fileobj", "download_fileobj",
                                             "put", "get", "delete", "load", "reload", "copy", "create_bucket",
                                             *DYNAMODB_ACTIONS, *SQS_ACTIONS)},
               RESOURCES, resources=True, data_actions=True),
        Family(("boto3.dynamodb.table.BatchWriter",), {m: "blocking_http" for m in ("put_item", "delete_item")},
               DYNAMODB + " (the batch writer sends a BatchWriteItem request whenever its buffer is full)"),
        Family(("googleapiclient.discovery.Resource",), {"execute": "blocking_http"},
               "https://googleapis.github.io/google-api-python-client/docs/thread_safety.html", resources=True),
        Family(("passlib.context.CryptContext",), {m: "blocking_cpu" for m in ("hash", "verify", "verify_and_update")},
               "https://passlib.readthedocs.io/en/stable/lib/passlib.context.html"),
    ),
    calls={"bcrypt.hashpw": ("blocking_cpu", "https://github.com/pyca/bcrypt#usage"),
           **{name: ("blocking_http", BOTO3_CREDENTIALS) for name in (
               "boto3.client", "boto3.resource", "boto3.Session.client", "boto3.session.Session.client",
               "boto3.Session.resource", "boto3.session.Session.resource")},
           "google.auth.default": ("blocking_http", GOOGLE_AUTH + "google.auth.html#google.auth.default (may ask the "
                                                   "Compute Engine metadata server, and reads the credential files)"),
           **{f"google.oauth2.service_account.{c}.from_service_account_file": (
               "blocking_file_io", GOOGLE_AUTH + "google.oauth2.service_account.html (reads the key file)")
              for c in ("Credentials", "IDTokenCredentials")},
           "bcrypt.checkpw": ("blocking_cpu", "https://github.com/pyca/bcrypt#usage")},
    returns={"googleapiclient.discovery.build": "googleapiclient.discovery.Resource",
             "boto3.client": "botocore.client.BaseClient", "boto3.session.Session.client": "botocore.client.BaseClient",
             "boto3.Session.client": "botocore.client.BaseClient",
             "boto3.resource": "boto3.resources.base.ServiceResource",
             "boto3.Session.resource": "boto3.resources.base.ServiceResource",
             "boto3.resources.base.ServiceResource.Table.batch_writer": "boto3.dynamodb.table.BatchWriter",
             "passlib.context.CryptContext": "passlib.context.CryptContext"},
)
