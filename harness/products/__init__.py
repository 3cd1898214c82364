"""The shipping coding agents: every fact about a product declared once, in its own module under
`shipped/` — its npm package, todo tools and their dialect, file tools and shell, own folders,
session record and its parser, compaction, extension point and switches. `product.py` is the
shape of a declaration, `catalog.py` finds every module in `shipped/` and gathers them; every
other wing reads products from the catalog."""
