"""The products' facts as the docs' table (docs/agents.md holds it between two markers; a test
keeps it equal to what this renders, so the docs never copy a fact by hand)."""

from __future__ import annotations

from tabulate import tabulate

from harness.products.catalog import PRODUCTS
from harness.products.product import CliProduct

BEGIN = "<!-- products table: harness/products/table.py -->"
END = "<!-- end of products table -->"


def _code(*names: str) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _reasons(rows: list[CliProduct]) -> dict[str, str]:
    """Each switch any of a product's rows sets, with why (a reason shared by several
    switches is said once, after the last of them)."""
    said: dict[str, list[str]] = {}
    for row in rows:
        for switch, why in row.why.items():
            keys = said.setdefault(why, [])
            if switch not in keys:
                keys.append(switch)
    return {"`, `".join(keys): why for why, keys in said.items()}


def products_table() -> str:
    """One row per shipping product (its CLI, whatever its rows): what the code declares."""
    rows = []
    for cli in dict.fromkeys(p.cli for p in PRODUCTS.values()):
        mine = [p for p in PRODUCTS.values() if p.cli == cli]
        first = mine[0]
        files = first.file_tools
        rows.append(
            [
                f"`{cli}` ({', '.join(f'`{p.name}`' for p in mine)})",
                f"`{first.package}@{first.version}`",
                "; ".join(_code(*p.todo_tools) for p in mine),
                _code(files.write, files.read, *files.edits) if files else "none (its shell)",
                _code(first.shell.tool),
                _code(*first.own_folders),
                first.record,
                f"{first.extension.kind} in `{first.extension.config}`: {first.extension.note}",
                f"`{first.compact_command}`" if first.compact_command else "none headless",
                "; ".join(f"`{k}`: {why}" for k, why in _reasons(mine).items()),
            ]
        )
    header = [
        "product (rows)",
        "npm package",
        "todo tools",
        "file tools",
        "shell",
        "own folder",
        "session record",
        "extension point",
        "compaction",
        "away from its defaults, and why (every other setting is the product's own)",
    ]
    return str(tabulate(rows, header, tablefmt="github"))


def main() -> None:
    """Print the table with its markers (to paste into docs/agents.md)."""
    print(f"{BEGIN}\n{products_table()}\n{END}")


if __name__ == "__main__":
    main()
