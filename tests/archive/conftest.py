"""The archive tests' real S3 server (SeaweedFS on 127.0.0.1) is the suite's shared one: the ``s3_server``
and ``s3`` fixtures of tests/conftest.py (one server per pytest worker, restarted for a test when an earlier
test left it down)."""
