"""The stages that build the cluster: sizing, the cluster, its fabrics and the DCI, in closed form.

Public surface: :func:`bom.topology.sizing.size`, :mod:`bom.topology.parallelism` and
:mod:`bom.topology.serving` (a job's split), :mod:`bom.topology.jobs` (a workload as they take it),
:func:`bom.topology.cluster.build_cluster`, :func:`bom.topology.fabrics.build_fabric` (a switch fabric's
planes, sized by :mod:`bom.topology.planes`), :mod:`bom.topology.support` (storage, in-band, OOB),
:func:`bom.topology.endpoints.build_endpoints`, :mod:`bom.topology.dci`, :mod:`bom.topology.ufm`,
:mod:`bom.topology.geometry` (the floor plan and the one rule for a run's length) and
:func:`bom.topology.linkgroups.count_hop` (the closed form's counting).
"""
