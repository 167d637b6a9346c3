"""The cable plan: every link from port to port, walked from the hop patterns' registry.

Public surface (:mod:`bom.cableplan.rows`): :func:`rows` (plain tuples in :data:`FIELDS` order),
:func:`cable_rows` (:class:`CableRow`), :func:`row_count` (from the closed form), :func:`tally` and
:func:`check` (the plan against the closed form), :class:`PlacementLocator`, :class:`Unplaced`;
:mod:`bom.cableplan.labels` (TIA-606 end labels).
"""
