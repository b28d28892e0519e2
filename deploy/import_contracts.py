"""The project's own import-linter contract type: an allow-list (`lint-imports`, pyproject.toml).

import-linter's `forbidden` contract names what a package may not import, so whatever nobody thought of (`uuid`,
`datetime`, `secrets`) gets in. An `allowed` contract names what it may import: every module of `source_modules`
imports only modules of its own package or of `allowed_modules` (top-level names: `collections`, `google`), each
import that is not listed is a breach. `ignore_imports` ("engine_core.game -> pathlib") are the justified exceptions,
one importer each. Only direct imports count: what an allowed module imports in turn is its own business.

tests/engine/test_purity.py reads the same contract from pyproject.toml and checks it again at run time, by importing
every game and bot in a fresh interpreter (what a compiled module imports included).
"""

from __future__ import annotations

from typing import Any

import grimp
from importlinter import Contract, ContractCheck, fields, output


class AllowedContract(Contract):
    """`type = "allowed"`: `source_modules` (packages) import only themselves and `allowed_modules`."""

    type_name = "allowed"

    source_modules = fields.ListField(subfield=fields.ModuleField())
    allowed_modules = fields.ListField(subfield=fields.StringField())
    ignore_imports = fields.ListField(subfield=fields.StringField(), required=False)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        sources: list[Any] = self.source_modules  # type: ignore[assignment]
        allowed: list[str] = self.allowed_modules  # type: ignore[assignment]
        exceptions: list[str] = self.ignore_imports or []  # type: ignore[assignment]
        ignored = {tuple(part.strip() for part in line.split("->")) for line in exceptions}
        breaches: list[tuple[str, str, tuple[int, ...]]] = []
        for source in sources:
            package = source.name
            for importer in sorted({package, *graph.find_descendants(package)}):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    top = imported.split(".")[0]
                    if top == package.split(".")[0] or top in allowed or (importer, imported) in ignored:
                        continue
                    details = graph.get_import_details(importer=importer, imported=imported)
                    lines = tuple(detail["line_number"] for detail in details)
                    breaches.append((importer, imported, lines))
        return ContractCheck(kept=not breaches, metadata={"breaches": breaches})

    def render_broken_contract(self, check: ContractCheck) -> None:
        output.print_error("Imports of modules not on the allow-list (allowed_modules):", bold=False)
        output.new_line()
        for importer, imported, lines in check.metadata["breaches"]:
            output.print_error(f"- {importer} -> {imported} (l.{', '.join(map(str, lines))})", bold=False)
        output.new_line()
