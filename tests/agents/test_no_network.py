"""A shipping CLI, run with the product's own switches, reaches nothing but the bridge: every
`connect` and `sendto` of the CLI's processes (strace, following forks) is to the bridge's
loopback port. A name lookup, telemetry, an update check or an error report would show as a
connection to a resolver or a remote address.

The episodes checked are the heavy oracle episodes, one per CLI, run under strace
(`NetworkTrace` in tests/agents/wrapped.py): Claude Code, OpenCode and Gemini CLI in
test_real_cli.py, Codex in test_real_rewrites.py. Here, the reading of strace's lines."""

from __future__ import annotations

from tests.agents.wrapped import reached


def test_reached_reads_strace_lines() -> None:
    trace = "\n".join(
        [
            '12 connect(5, {sa_family=AF_INET, sin_port=htons(3001), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',  # noqa: E501
            '13 connect(7, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2607:6bc0::10", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH',  # noqa: E501
            '14 sendto(9, "x", 1, 0, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 1',  # noqa: E501
            '15 connect(4, {sa_family=AF_UNIX, sun_path="/tmp/x.sock"}, 110) = 0',  # noqa: E501
        ]
    )
    assert reached(trace) == [("127.0.0.1", 3001), ("2607:6bc0::10", 443), ("10.255.255.53", 53)]
