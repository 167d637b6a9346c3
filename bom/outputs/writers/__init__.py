"""One writer per output format (format only: they read the report or stream the plan's rows).

Public surface: :func:`bom.outputs.writers.registry.writers` (suffix -> writer of the build's set),
:mod:`~bom.outputs.writers.xlsx` (the BOM and TCO workbook), :mod:`~bom.outputs.writers.documents`
(HTML, Markdown, JSON, CSV, the cart), :mod:`~bom.outputs.writers.cables` and
:mod:`~bom.outputs.writers.cabling_xlsx` (the cable plan), :mod:`~bom.outputs.writers.compare_xlsx`
and :mod:`~bom.outputs.writers.compare_text` (the comparison), :mod:`~bom.outputs.writers.diagram`,
:mod:`~bom.outputs.writers.topology` (DOT, draw.io, netlab), :mod:`~bom.outputs.writers.ibsim` (an
InfiniBand fabric as ibsim's net file, and the HCA map) and :mod:`~bom.outputs.writers.workorder`.
"""
