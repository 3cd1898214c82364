"""One driver per run folder: a lease (`driver.lock`) that a second driver on the same folder
sees and refuses with one line, instead of both writing the same logs.

The lease names its holder (host, process, a random token) and is renewed every `RENEW`
seconds while the run goes on. It is stale, and taken over, when its holder's process is gone
(same host) or it has not been renewed for `STALE` seconds (another host, or a lost node).
On a local disk the lease is created exclusively; an object store has no exclusive create, so
the driver writes it, waits a moment and reads it back: of two drivers starting in the same
instant, the one whose write landed last holds it and the other refuses.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
import uuid
from pathlib import Path
from types import TracebackType

from harness import storage

RENEW = 5.0
STALE = 30.0
#: how long a driver on an object store waits before reading its lease back
SETTLE = 1.0


class LeaseHeld(RuntimeError):
    """Another live driver holds the folder."""


class Lease:
    """`with Lease(run_dir): ...` holds the folder for the block's duration."""

    def __init__(self, run_dir: str) -> None:
        self.path = storage.join(run_dir, "driver.lock")
        self.token = uuid.uuid4().hex
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _body(self) -> str:
        host, pid = socket.gethostname(), os.getpid()
        return json.dumps({"host": host, "pid": pid, "token": self.token, "at": time.time()})

    def _holder(self) -> dict[str, object] | None:
        try:
            data = json.loads(storage.read_text(self.path))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _stale(self, holder: dict[str, object]) -> bool:
        if holder.get("token") == self.token:
            return True
        at = holder.get("at")
        if not isinstance(at, int | float) or time.time() - at > STALE:
            return True
        pid = holder.get("pid")
        if holder.get("host") == socket.gethostname() and isinstance(pid, int):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True  # its driver died (even by SIGKILL): nothing holds the folder
            except PermissionError:
                return False
        return False

    def _refuse(self, holder: dict[str, object]) -> LeaseHeld:
        return LeaseHeld(
            f"{self.path}: another driver (host {holder.get('host')}, pid {holder.get('pid')}) "
            f"is running this run folder; wait for it, or stop it (its lease goes stale "
            f"{STALE:.0f} s after it stops renewing)"
        )

    def acquire(self) -> None:
        holder = self._holder()
        if holder is not None and not self._stale(holder):
            raise self._refuse(holder)
        if storage.is_url(self.path):
            storage.write_text(self.path, self._body())
            time.sleep(SETTLE)
            holder = self._holder()
            if holder is None or holder.get("token") != self.token:
                raise self._refuse(holder or {})
        else:
            path = Path(self.path)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)  # stale (checked above)
            try:
                descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                raise self._refuse(self._holder() or {}) from None
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(self._body())
        self._thread = threading.Thread(target=self._renew, daemon=True)
        self._thread.start()

    def _renew(self) -> None:
        while not self._stop.wait(RENEW):
            # a missed renewal is retried; STALE allows several
            with contextlib.suppress(OSError):
                storage.write_text(self.path, self._body())

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        holder = self._holder()
        if holder is not None and holder.get("token") == self.token:
            with contextlib.suppress(OSError):
                storage.remove_tree(self.path)

    def __enter__(self) -> Lease:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()
