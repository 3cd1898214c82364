"""The cyclic garbage collector around a run: off while the run imports, then settled.

A run imports inspect and openpyxl before its first episode (scipy, statsmodels and pandas, the
summary's, after its last, also with the collector off: `benchmark._statistics`): about 390k
objects with them, of which some 175k are cyclic garbage and the rest live as long as the
process. With the collector on, its full passes over that growing heap cost about 0.3 s of CPU while
importing, and every full pass the eval triggers later scans the 200k survivors again (about
0.4 s per 3-epoch run of one variant). `settle` collects the imports' garbage once and freezes
the survivors (`gc.freeze`), so later passes scan only what the eval made. Measured in
docs/performance.md.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def imports_uncollected() -> Iterator[None]:
    """The collector off for the block (a run's imports and set-up), however it ends; the
    block's code calls `settle` once its imports are done, and leaving settles anyway."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled and not gc.isenabled():
            settle()


#: whether this process has collected and frozen its imports (once is enough: a later call,
#: say for a worker's second variant, would only freeze what the previous eval left behind)
_settled = False


def settle() -> None:
    """Collect once, freeze what survived, and turn the collector on; the collection and the
    freeze happen at the first call in a process, later calls only turn the collector on."""
    global _settled
    if not _settled:
        gc.collect()
        gc.freeze()
        _settled = True
    gc.enable()


__all__ = ["imports_uncollected", "settle"]
