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
CLOUD_AND_TASKS = Vocabulary(
    families=(
        Family(("botocore.client.BaseClient",), {"*": "blocking_http"}, BOTO3,
               except_=frozenset({"get_paginator", "get_waiter", "can_paginate", "generate_presigned_url",
                                  "generate_presigned_post", "close", "meta", "exceptions"})),
        Family(("boto3.resources.base.ServiceResource",),
               {m: "blocking_http" for m in ("upload_file", "download_file", "upload_fileobj", "download_fileobj",
                                             "put", "get", "delete", "load", "reload", "copy", "create_bucket")},
               "https://boto3.amazonaws.com/v1/documentation/api/latest/guide/resources.html", resources=True),
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
             "passlib.context.CryptContext": "passlib.context.CryptContext"},
)
