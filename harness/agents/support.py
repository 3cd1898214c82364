"""What the board says about a shipping agent's row: its product, version, switches, hooks and
the scenarios it left out, with why (`left_out`); and which products take a scenario
(`readiness`, for `todo-bench scenarios list` and `check`)."""

from __future__ import annotations

from collections.abc import Iterable

from harness.agents.binaries import installed_version
from harness.hooks.fixes import FIXES
from harness.products.catalog import PRODUCTS
from harness.products.product import CliProduct, SandboxKind
from harness.results.summary import AgentRecord
from harness.suite.agent_ready import unsupported
from harness.suite.scenario import Scenario


def missing_feature(product: CliProduct, scenario: Scenario) -> str | None:
    """Why the product's CLI cannot take the scenario as written (a feature it has no channel
    for, with the product's reason), or None."""
    why = unsupported(scenario, compacts=product.compact_command is not None)
    return f"{why}: {product.no_compaction}" if why and product.no_compaction else why


def left_out(product: CliProduct, scenarios: Iterable[Scenario]) -> dict[str, str]:
    """The scenarios the product's row cannot take as written, each with its reason: a feature
    the product's CLI has no channel for, or one the row's hooks cannot follow."""
    out: dict[str, str] = {}
    for scenario in scenarios:
        why = [missing_feature(product, scenario)]
        if scenario.user_turns:
            why += [FIXES[fix].no_user_turns for fix in product.hooks]
        if reasons := [w for w in why if w]:
            out[scenario.id] = "; ".join(reasons)
    return out


def readiness(scenario: Scenario) -> str:
    """Which CLIs' rows take the scenario (their hooks aside): 'yes' (every one), '<cli>, ...
    only (<feature>)', or 'no: <feature>'."""
    takers = {p.cli: None for p in PRODUCTS.values() if missing_feature(p, scenario) is None}
    clis = {p.cli: None for p in PRODUCTS.values()}
    if len(takers) == len(clis):
        return "yes"
    why = unsupported(scenario)
    return f"{', '.join(takers)} only ({why})" if takers else f"no: {why}"


def agent_record(
    product: CliProduct, left: dict[str, str], kind: SandboxKind = "local"
) -> AgentRecord:
    """What the board says about a CLI row (kept in the eval log's task metadata): in a
    container, the version its image was built with (the pinned one, checked at the build);
    on this host, the one installed here."""
    version = product.version if kind == "docker" else installed_version(product)
    return AgentRecord(
        product=product.title,
        package=product.package,
        version=version or "not installed",
        switches=product.switches,
        model_config_id=product.model_config_id,
        hooks=list(product.hooks),
        left_out=left,
    )
