"""CLI: families, info, export, draw."""

from __future__ import annotations

import typer
from rich.table import Table

from ._common import console


def families() -> None:
    """List every family, its parameters and the paper it comes from."""
    from ..topology import FAMILIES

    table = Table(title="topology families")
    table.add_column("family")
    table.add_column("network")
    table.add_column("parameters")
    table.add_column("paper")
    for name, fam in FAMILIES.items():
        table.add_row(name, fam.title, "\n".join(p.describe() for p in fam.params), fam.paper)
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("families")(families)
