"""The hook program kept warm: a resident process that has imported the rules once and answers
each event in a fork of itself, so a hook call costs a Python start-up and a socket round trip
instead of importing pydantic and the rule code every time (issue 57: about 200 ms a call cold).

The client side (`ask`, run by every `todo-bench-hook`) imports only the standard library's
socket (messages are `marshal`'s: the same interpreter on both ends, and json would import re).
It finds the server by a Unix socket in a folder of the user's own (mode 0700,
`$TODO_BENCH_HOOK_WARM_DIR`, else `$XDG_RUNTIME_DIR/todo-bench-hooks`, else
`/tmp/todo-bench-hooks-UID`), named by this interpreter, its import path and the package's
files (so an upgrade or an edited checkout gets a new server, never stale code). With no
server there yet, the call is answered in process as before and a server is started, detached,
for the next call.

The server (`warm_server.py`) forks one child per call: the child takes the call's arguments,
working folder, umask and environment (which may hold the user's keys: the socket is the user's
own, in a folder closed to everyone else), runs exactly the in-process program
(`entry.answer`) on the call's stdin and returns its exit code and output; nothing a call does
outlives its child. The server ends itself after ten idle minutes, or within seconds of its
socket being removed (a CLI episode's HOME cleaned up). `TODO_BENCH_HOOK_WARM=0` turns it all
off.

Any failure of the warm path (no folder of the user's own, a socket path too long, a refused or
broken connection) falls back to answering in process; only a server that takes the call and
then outlasts the hook's budget ends the call with a non-blocking failure, journaled.
"""

from __future__ import annotations

# `_socket`, the C module under `socket`: the wrapper imports enum and selectors, about 8 ms of
# a warm call that uses none of them
import _socket
import marshal
import os
import stat
import struct
import sys
import zlib

#: `0` turns the warm server off (every call answered in its own process)
WARM = "TODO_BENCH_HOOK_WARM"
#: the folder of the sockets (tests and CLI episodes give their own)
WARM_DIR = "TODO_BENCH_HOOK_WARM_DIR"
#: seconds the client waits past the hook's budget (the child answers within that budget)
MARGIN = 3.0
#: the longest socket path every kernel takes (sun_path: 108 bytes on Linux, 104 on macOS,
#: its NUL included)
MAX_PATH = 103
#: seconds a server's lock file keeps others from being started: a server starting up (no
#: second one while it imports), or one that failed to (one try a minute, not one a call)
RESPAWN = 60.0
#: what `ps` shows for the server
TITLE = "todo-bench-hook warm server"
_HEADER = struct.Struct("!II")


class Reply:
    """What the program printed and returned, as the server's child ran it (a plain class:
    dataclasses and typing cost a hook call milliseconds to import)."""

    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr


class ServerLost(Exception):
    """The server took the call and gave no answer in time."""


def enabled() -> bool:
    return os.environ.get(WARM, "1") != "0"


def _folder() -> str | None:
    """The sockets' folder, made if needed; None unless it is a real folder of this user's,
    closed to everyone else (paths as strings: pathlib costs a hook call milliseconds)."""
    named = os.environ.get(WARM_DIR)
    if named:
        folder = named
    elif os.environ.get("XDG_RUNTIME_DIR"):
        folder = os.path.join(os.environ["XDG_RUNTIME_DIR"], "todo-bench-hooks")
    else:
        folder = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"todo-bench-hooks-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        seen = os.lstat(folder)
    except OSError:
        return None
    own = stat.S_ISDIR(seen.st_mode) and seen.st_uid == os.getuid()
    return folder if own and not seen.st_mode & 0o077 else None


#: the package whose files name the server
PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def stamp(package: str = PACKAGE) -> str:
    """This interpreter, its import path and every file of the package, by size and time: any
    change (an upgrade, an edit in a checkout, another venv) names another server."""
    parts = [sys.executable, *sys.path]
    for top, folders, files in os.walk(package):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".yaml", ".json")):
                seen = os.stat(os.path.join(top, name))
                parts.append(f"{top}/{name}:{seen.st_size}:{seen.st_mtime_ns}")
    # two checksums (64 bits): the standard library's cheapest to import, for a name, not a
    # secret (hashlib costs a hook call about 6 ms more)
    data = "\n".join(parts).encode(errors="surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def socket_path() -> str | None:
    """This installation's server socket; None where the warm path cannot be used."""
    folder = _folder()
    if folder is None:
        return None
    path = os.path.join(folder, f"{stamp()}.sock")
    return path if len(os.fsencode(path)) <= MAX_PATH else None


def ask(args: list[str], raw: bytes, budget: float) -> Reply | None:
    """The call answered by the warm server; None where it cannot be (answer in process: a
    server is then started for the next call). ServerLost if it took the call and did not
    answer within `budget` seconds."""
    path = socket_path() if enabled() else None
    if path is None:
        return None
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(2.0)
        try:
            conn.connect(path)
        except OSError:
            _start(path)
            return None
        conn.settimeout(budget)
        umask = os.umask(0o077)
        os.umask(umask)
        try:
            here = os.getcwd()
        except OSError:  # a working folder that is gone: the cold program says what it can
            return None
        call = {"args": args, "cwd": here, "env": dict(os.environ), "umask": umask}
        try:
            send(conn, marshal.dumps(call), raw)
            answer, _ = receive(conn)
            reply = marshal.loads(answer)
            return Reply(int(reply["code"]), str(reply["stdout"]), str(reply["stderr"]))
        except TimeoutError as late:
            raise ServerLost(f"the warm hook server gave no answer within {budget:g} s") from late
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            return None  # the child died before answering, or garbled it: answer in process
    finally:
        conn.close()


def send(conn: _socket.socket, head: bytes, body: bytes) -> None:
    conn.sendall(_HEADER.pack(len(head), len(body)) + head + body)


def _exactly(conn: _socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            raise ValueError("the connection closed mid-message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(conn: _socket.socket) -> tuple[bytes, bytes]:
    head_size, body_size = _HEADER.unpack(_exactly(conn, _HEADER.size))
    return _exactly(conn, head_size), _exactly(conn, body_size)


def _start(path: str) -> None:
    """Start the server for `path`, detached (its own session, no inherited output: the
    product waits for the hook's output to close), with this process's import path exactly,
    never the working folder's."""
    import subprocess
    import time

    try:
        if time.time() - os.stat(f"{path}.lock").st_mtime < RESPAWN:
            return
    except OSError:  # no lock file: no server has started here, or the last one ended cleanly
        pass

    code = (
        "import sys; sys.path[:] = sys.argv[3:]; from harness.hooks.warm_server import serve; "
        "sys.exit(serve(sys.argv[2]))"
    )
    try:
        subprocess.Popen(
            [sys.executable, "-c", code, TITLE, path, *sys.path],
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:  # no server this time; the next call tries again
        return
