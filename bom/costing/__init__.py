"""BOM lines, the order, the TCO, the report's figures and the generation comparison.

Public surface: :func:`bom.costing.lines.all_lines`, :class:`bom.costing.categories.Category`,
:func:`bom.costing.order.order_lines`, :func:`bom.costing.tco.compute_tco` and ``inputs``,
:func:`bom.costing.report.make_report` (:class:`~bom.costing.report.Report`, what every writer reads),
:mod:`bom.costing.phases`, :mod:`bom.costing.compare`, :mod:`bom.costing.sitepower`,
:mod:`bom.costing.cooling`, :mod:`bom.costing.uncertainty`, :mod:`bom.costing.schedule`.
"""
