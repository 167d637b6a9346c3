"""Racks and rack units: which device stands where.

Public surface: :func:`bom.placement.layout.place` (a design's placement), :mod:`bom.placement.racks`
(packing), :mod:`bom.placement.elevation` (each rack's elevation as rows); the placement's types are
:mod:`bom.model.placement`'s.
"""
