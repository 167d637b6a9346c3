"""Rendering and publishing files, and the terminal's tables (format only).

Public surface: :func:`bom.outputs.publish.write_all` (the one atomic publisher),
:func:`bom.outputs.sets.render` and ``build_output`` (a build's set of files), the other commands' sets
(:mod:`bom.outputs.commandsets`: compare, diff, sweep, faults), the writers
(:mod:`bom.outputs.writers`), :mod:`bom.outputs.planfiles` (the cable plan's files),
:mod:`bom.outputs.terminal` (what commands print), :mod:`bom.outputs.schema` (the output JSON
Schema) and :mod:`bom.outputs.reference` (docs/scenarios.md).
"""
