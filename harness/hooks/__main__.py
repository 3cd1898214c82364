"""`python -m harness.hooks FIX[,FIX...]`: the same as `todo-bench-hook`."""

import sys

from harness.hooks.entry import main

sys.exit(main())
