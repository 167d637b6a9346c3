"""As-built verification: what discovery sees (LLDP, ibnetdiscover, NetBox) against the cable plan.

Public surface: :func:`bom.verify.run.read_sources`, :func:`~bom.verify.run.verify_model` (a
:class:`~bom.verify.check.Verification`) and :func:`~bom.verify.run.work_order`; the readers :mod:`bom.verify.lldp`,
:mod:`bom.verify.ib` and the HCA map it takes, :mod:`bom.verify.hcamap`; :mod:`bom.verify.seen` (the index of
neighbour pairs), :mod:`bom.verify.check` (the plan streamed past it) and :mod:`bom.verify.workorder`.
"""
