"""Test-session hooks."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.hooks.warm import WARM_DIR


def _encodable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Escape lone surrogates in what a test report carries.

    The fuzz tests feed tools hostile text such as '\\ud800'; when any of it reaches a report
    (captured output, or a failure's text), pytest-xdist cannot send the report to the
    controller, the worker dies with an INTERNALERROR and the result is lost. Escaping keeps
    the report readable and the run's outcome intact; a report that is already valid UTF-8 is
    left as it is.
    """
    report.sections = [(title, _encodable(content)) for title, content in report.sections]
    if report.longrepr is not None:
        text = str(report.longrepr)
        if _encodable(text) != text:
            report.longrepr = _encodable(text)


@pytest.fixture(autouse=True)
def _grouped(request: pytest.FixtureRequest) -> None:
    """Fail a test `--dist loadgroup` did not group: the heavy suite's grouped tests (the Ray
    cluster's) share one cluster, and spread over workers they wait on each other (pytest 9.2
    with pytest-xdist 3.8 grouped nothing, silently, and CI took minutes longer)."""
    node = request.node
    if (
        request.config.getoption("loadgroup", default=False)
        and node.get_closest_marker("xdist_group")
        and "@" not in node.nodeid
    ):
        pytest.fail(
            f"pytest-xdist's loadgroup did not group {node.nodeid}: this pytest and "
            "pytest-xdist do not work together (see the pin in pyproject.toml)"
        )


@pytest.fixture(autouse=True)
def _default_sigint() -> Iterator[None]:
    """Each test starts with Python's own Ctrl-C handler: a test that runs the command in-process
    through an interrupt leaves SIGINT ignored (the command ignores a second Ctrl-C while it winds
    down), and a later test in the same worker that interrupts itself (the silence limit) would
    then never see its KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield


#: the hook program's warm servers (harness/hooks/warm.py) of this test process: a folder of its
#: own, removed at the end, which ends each server within seconds (none outlives the tests)
_WARM = Path(tempfile.mkdtemp(prefix="tb-warm-"))
os.environ[WARM_DIR] = str(_WARM)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_WARM, ignore_errors=True)
