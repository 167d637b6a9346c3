"""Link patterns: each hop described once, walked for the closed form and for the cable plan.

Public surface: :class:`bom.links.pattern.Pattern` and :class:`~bom.links.pattern.HopContext` (the
protocol: ``applies``, ``pairs``, ``link``; ``count`` and ``rows`` derived);
:data:`bom.links.registry.FAMILIES` (one ordered registry per fabric kind), ``view_of``, ``dci_view``
and ``count``; the views a pattern reads (:mod:`bom.links.views`); the families' patterns
(:mod:`.fabric`, :mod:`.pooled`, :mod:`.ufm`, :mod:`.oob`, :mod:`.dci`, :mod:`.line`,
:mod:`.scaleup`, :mod:`.power`: the racks' power cords and their closed form, ``power_plan``); the
plan's port bookkeeping (:mod:`bom.links.ports`).
"""
