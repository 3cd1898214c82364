"""The warm hook server (`warm.py` is its client, and says what it is for): one per socket,
it has imported the rules once and answers each call in a fork of itself, with the call's
arguments, working folder, umask, environment and stdin, by exactly the program a cold call
runs (`entry.answer`). A fork waits for each next call (a spare), so forking is not on a call's
path. It ends after `IDLE` seconds without a call, or within `WATCH` seconds of its socket being
removed or replaced; a spare whose server is gone ends within `WATCH` seconds too."""

from __future__ import annotations

import contextlib
import fcntl
import gc
import io
import marshal
import os
import select
import signal
import socket
import sys

from harness.hooks.entry import answer
from harness.hooks.warm import receive, send

#: seconds without a call after which the server ends (tests make it short)
WARM_IDLE = "TODO_BENCH_HOOK_WARM_IDLE"
IDLE = 600.0
#: how often an idle server checks that its socket is still its own
WATCH = 2.0


def serve(where: str) -> int:
    """Serve the socket at `where` (module docstring); 0 at its end. One server per socket: a
    second one exits at once."""
    lock = os.open(f"{where}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0
    os.utime(lock)  # its age tells clients a server is starting here (warm.RESPAWN)
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _preload()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(where)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(where)
    os.chmod(where, 0o600)
    own = os.stat(where).st_ino
    server.listen(64)
    server.settimeout(WATCH)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children
    # what is imported now stays out of the children's garbage collection: fewer of the pages
    # they share with this process are copied when they run
    gc.freeze()
    taken, told = os.pipe()
    idle_for = _idle()
    quiet = 0.0
    spare = _spare(server, told)
    try:
        while quiet < idle_for:
            if select.select([taken], [], [], WATCH)[0]:
                os.read(taken, 64)
                quiet = 0.0
                spare = _spare(server, told)
            else:
                quiet += WATCH
                if not _still_own(where, own):
                    break
                try:
                    os.kill(spare, 0)
                except ProcessLookupError:  # the spare died without a call: another
                    spare = _spare(server, told)
    finally:
        with contextlib.suppress(OSError):
            os.kill(spare, signal.SIGTERM)
        if _still_own(where, own):
            os.unlink(where)
        server.close()
        # a server starting meanwhile either fails this lock or takes a new file's: either way
        # one server ends up bound to the socket (one bound elsewhere sees it gone and ends)
        with contextlib.suppress(OSError):
            os.unlink(f"{where}.lock")
        os.close(lock)
    return 0


def _spare(server: socket.socket, told: int) -> int:
    """Fork the child that takes the next call (the fork is off the call's path: a call waits
    only for its own work); its pid. The child says on `told` when it has taken a call, so the
    next spare is forked while it works."""
    # the server's pid is taken before the fork: a server killed between the fork and the
    # child's first line would leave the child reading its new parent as its server, for ever
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    while True:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if os.getppid() != parent:  # the server is gone (killed): so is its spare
                os._exit(0)
            continue
        except BaseException:
            os._exit(0)
        os.write(told, b".")
        server.close()
        _child(conn)


def _idle() -> float:
    try:
        value = float(os.environ.get(WARM_IDLE) or IDLE)
    except ValueError:
        return IDLE
    return value if value > 0 else IDLE


def _still_own(where: str, inode: int) -> bool:
    try:
        return os.stat(where).st_ino == inode
    except OSError:
        return False


def _preload() -> None:
    """Everything a call may import, and the package's own keyword table, once."""
    from harness.episode import ending  # noqa: F401
    from harness.episode.gate import heuristic, verdict  # noqa: F401
    from harness.hooks import dispatch, fixes, hosts, overrun, protocol, state  # noqa: F401
    from harness.suite import scenario, tracker, workspace  # noqa: F401
    from harness.todo import registry  # noqa: F401

    heuristic.load_table()


def _child(conn: socket.socket) -> None:
    """Run one call as its own process would, and answer; never returns."""
    try:
        conn.settimeout(None)
        head, raw = receive(conn)
        call = marshal.loads(head)
        os.chdir(call["cwd"])
        os.umask(int(call["umask"]))
        os.environ.clear()
        os.environ.update(call["env"])
        out, err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = out, err
        code = answer(list(call["args"]), raw)
        reply = {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
        send(conn, marshal.dumps(reply), b"")
    except BaseException:  # the client sees a closed connection and answers in process
        pass
    finally:
        os._exit(0)
