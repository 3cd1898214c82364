"""A failed or unreadable log's cause in plain words, read from the error's text: status codes,
not any digits; a body cut short, not a server that could not be reached."""

from __future__ import annotations

import pytest

from harness.results.run_logs import cause


@pytest.mark.parametrize(
    ("message", "meaning"),
    [
        (
            "OverloadedError: Error code: 529 - {'type': 'overloaded_error'}",
            "overloaded (HTTP 529)",
        ),
        ("InternalServerError: Error code: 529 - overloaded", "overloaded (HTTP 529)"),
        ("APIStatusError: status code 429", "rate limited (HTTP 429)"),
        # a 500 from a server on a port, at a line number, with digits that read 529 or 429
        (
            "InternalServerError: Error code: 500 - boom (http://127.0.0.1:45291/v1, line 429)",
            "the model server failed (HTTP 5xx)",
        ),
        ("ValueError: request 52900 was refused", "ValueError: request 52900 was refused"),
    ],
)
def test_a_failed_log_s_cause_reads_status_codes_not_any_digits(message: str, meaning: str) -> None:
    assert meaning in cause(message)


def test_a_body_cut_short_is_a_truncated_response_not_a_connection_failure() -> None:
    cut = (
        "httpx.RemoteProtocolError: peer closed connection without sending complete message "
        "body (received 75 bytes, expected 150)\n...\nopenai.APIConnectionError: Connection error."
    )
    assert cause("APIConnectionError('Connection error.')", cut).startswith(
        "the model server's response was cut off"
    )  # 691d616: "cannot connect to the model server"
    refused = "httpx.ConnectError: [Errno 111] Connection refused\nopenai.APIConnectionError"
    assert cause("APIConnectionError('Connection error.')", refused).startswith(
        "cannot connect to the model server"
    )
