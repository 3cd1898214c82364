"""A local S3 endpoint for tests: moto's server on 127.0.0.1, one bucket, the standard AWS
variables pointing at it (what a user sets for a real store)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

BUCKET = "bench"


@contextmanager
def s3_endpoint() -> Iterator[dict[str, str]]:
    """Start the endpoint, create the bucket, set the AWS variables in this process for the
    block; yields them (for subprocesses)."""
    import logging

    import boto3  # type: ignore[import-untyped]
    from moto.server import ThreadedMotoServer
    from s3fs import S3FileSystem  # type: ignore[import-untyped]

    # the endpoint's request log (one line per request) is noise in a test's captured output
    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    # fsspec keeps one S3 filesystem per set of arguments, whatever the environment says: a
    # cached one would still point at an earlier test's endpoint
    S3FileSystem.clear_instance_cache()
    try:
        boto3.client("s3").create_bucket(Bucket=BUCKET)
        yield env
    finally:
        S3FileSystem.clear_instance_cache()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()
