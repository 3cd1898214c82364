"""The shipping coding agents: every fact about a product declared once, in its own module under
`shipped/` — its npm package, todo tools and their dialect, its full-list tool's backend, file
tools and shell, own folders, session record and its parser, compaction, extension point and
switches, and how the board runs it. `product.py` is the shape of a declaration (with
`list_backend.py` and `cli_runner.py` for the backend and the runner), `catalog.py` finds every
module in `shipped/` and gathers them; every other wing reads products from the catalog."""
