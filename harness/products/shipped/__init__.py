"""One module per shipping product, each with its `ROWS` (`harness/products/product.py`
`CliProduct`) and its record parser; `harness/products/catalog.py` finds every module here, so a
new product is a new module and nothing in this folder lists it."""
