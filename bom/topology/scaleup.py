"""The scale-up tier: the links inside every scale-up domain, and what they need.

Three kinds (``ScaleUp.kind`` in the platform row):

- ``electrical``: GPU links on copper or board traces inside the domain. With switch chips
  (NVSwitch on a baseboard or in an NVL72 spine) a link runs GPU to switch chip, so a domain has
  GPUs x links per GPU of them; without (Infinity Fabric and Gaudi's RoCE mesh are all-to-all on
  the baseboard) a link joins two GPUs, so half that. Nothing is bought per link.
- ``switched``: the same count over Ethernet / UALink switch chips inside the rack (Helios);
  the switches, trays and cables are counted in the tier and bought with the rack.
- ``torus-ocs``: a cube of chips (TPU v4: 4x4x4, 64 chips, one rack) is a mesh on copper; the
  torus wraparound leaves every face on optics to optical circuit switches. Closed form per
  cube edge ``n = (n_1, .., n_k)``:

  - links inside a cube: sum over d of (n_d - 1) x prod(n_e, e != d)
  - optical links per cube: 2 x sum over d of prod(n_e, e != d) (both faces of each dimension)
  - OCS groups: sum over d of prod(n_e, e != d), one per dimension and position on a face, each
    joining that position's + and - face of every cube in the domain: 2 x cubes ports, so
    ceil(2 x cubes / OCS ports) switches per group.
  - one optic per optical link at the cube end (the OCS is passive), one fibre run per link.

  TPU v4 (ISCA 2023): 4x4x4 cubes, 64 cubes a pod: 144 copper links and 96 optical links a
  cube, 48 OCS groups of 128 ports, 6,144 optical links; chip links 64 x 144 + 6,144 / 2 =
  12,288 = 4,096 chips x 6 ports / 2.

A domain over two racks (GB200 NVL36x2, ``scale_up.inter_rack``): each rack's switch chips take its
own GPUs' links (GPUs x links per GPU in all, as in one rack) and as many to the same chip of the other
rack: GPUs / 2 x links per GPU between the racks (36 x 18 = 648), ``links_per_cable`` a cable (4 NVLink
links of 2 x 200G lanes in a 1.6T OSFP cable: 162).
"""

from __future__ import annotations

from bom.catalog.rows import Platform
from bom.links.scaleup import INTER_RACK, SWITCHED, TORUS
from bom.model.cluster import ScaleUp


def scale_up(platform: Platform, gpus: int) -> ScaleUp:
    """The scale-up tier of ``gpus`` GPUs (whole systems) on ``platform``, counted with the
    patterns of :mod:`bom.links.scaleup` (the cable plan expands the same ones)."""
    p, su = platform, platform.scale_up
    domains = -(-gpus // p.gpus_per_domain)
    if su.torus is not None:
        t = su.torus
        cubes = gpus // t.chips
        inside, optical, groups = TORUS.cube_links(t)
        shape = t.slice_for(gpus) if not cubes else None
        if shape is not None:
            # A slice smaller than a cube: its part of the cube's copper mesh, no optics, no OCS.
            return ScaleUp(su.kind, domains, p.gpus_per_domain, TORUS.mesh_links(shape), 0, 0, 0)
        links = cubes * optical
        return ScaleUp(su.kind, domains, p.gpus_per_domain, cubes * inside, 0, 0, 0, links, links, links,
                       links * t.fibre.strands, TORUS.ocs(p, t, cubes), TORUS.ocs(p, t, cubes) * (t.ocs.ports or 0),
                       groups, cubes)
    across, cables = INTER_RACK.per_domain(p)
    return ScaleUp(su.kind, domains, p.gpus_per_domain, SWITCHED.links(su, gpus),
                   domains * su.copper_cables_per_domain, domains * su.switch_chips_per_domain,
                   domains * su.switch_trays_per_domain, switch=su.switch, inter_rack_links=domains * across,
                   inter_rack_cables=domains * cables)
