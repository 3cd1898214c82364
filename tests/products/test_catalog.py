"""The catalog finds every module of harness/products/shipped/: a new product is its module."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.products import catalog, shipped

SHIPPED = Path(shipped.__file__).parent


@pytest.fixture
def extra_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A second folder of `shipped/`, as a product module added there would be found."""
    monkeypatch.setattr(shipped, "__path__", [*shipped.__path__, str(tmp_path)])
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_every_module_of_shipped_is_a_product_in_name_order() -> None:
    names = sorted(p.stem for p in SHIPPED.glob("*.py") if p.stem != "__init__")
    assert [m.__name__.rsplit(".", 1)[1] for m in catalog.MODULES] == names  # type: ignore[attr-defined]
    assert [f.name for f in catalog.FORMATS] == [m.CLI for m in catalog.MODULES]
    assert list(catalog.PRODUCTS) == [row.name for m in catalog.MODULES for row in m.ROWS]


def test_a_new_module_joins_the_catalog(extra_folder: Path) -> None:
    (extra_folder / "zz_agent.py").write_text(
        "from harness.products.shipped.codex import ROWS as _CODEX, calls, events, final_text\n"
        "from harness.products.shipped.codex import RUNNER, recognises\n"
        "CLI = 'zz-agent'\n"
        "ROWS = (_CODEX[0].model_copy(update={'name': 'cli/zz-agent', 'cli': CLI}),)\n",
        encoding="utf-8",
    )
    found = catalog._shipped()
    assert found[-1].CLI == "zz-agent"
    assert [row.name for row in found[-1].ROWS] == ["cli/zz-agent"]


def test_a_module_that_declares_too_little_is_named(extra_folder: Path) -> None:
    (extra_folder / "zz_half.py").write_text("CLI = 'zz-half'\nROWS = ()\n", encoding="utf-8")
    with pytest.raises(
        ImportError, match=r"shipped/zz_half\.py declares no RUNNER, recognises, events"
    ):
        catalog._shipped()
