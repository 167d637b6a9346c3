"""Scale-up: the links inside every scale-up domain (hops ``gpu-nvswitch`` and ``cube-ocs``).

One pattern per kind of domain, counted and expanded. The closed form
(:func:`bom.topology.scaleup.scale_up`) counts with :class:`SwitchedLinks` and :class:`TorusLinks`;
the cable plan (``bom cables --scale-up``) walks the same rules in their ``rows``.

- :class:`SwitchedLinks`: a GPU's link ``l`` goes to switch chip ``l * chips // links`` (an even
  spread: one link to each of the 18 chips of an NVL72, as its NVLink spine runs; on an HGX
  baseboard the chips sit on the node itself); chip port ``p`` takes the domain's GPU ``p``'s link
  to it. Without switch chips (Infinity Fabric, Gaudi's RoCE mesh: all-to-all on the baseboard) a
  link joins two GPUs, so half as many, and the plan lists none (they are traces).
- :class:`TorusLinks`: cube ``c`` of its domain, dimension ``d``, position ``k`` on the face, side
  ``s`` (0 the - face, 1 the +): OCS group ``g`` = the faces before ``d`` + ``k``; the group's
  port ``2c + s``, over ``ceil(2 x cubes / ports)`` switches per group. Chip numbers run x
  fastest; a host holds ``gpus_per_node`` consecutive chips (an assumption: Google does not
  publish which chips share a tray). The OCSes stand nowhere in the placement: unplaced.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bom.links.pattern import HopContext, Item, Link, Pattern, Rows
from bom.links.views import ScaleUpView
from bom.model.hops import HopKind
from bom.roles import Layer, Tier

if TYPE_CHECKING:
    from bom.catalog.rows import Platform, Torus
    from bom.catalog.rows import ScaleUp as ScaleUpSpec
    from bom.model.linkgroups import LinkGroup


class InDomain(Pattern[ScaleUpView]):
    """A scale-up hop: its closed form is the :class:`~bom.model.cluster.ScaleUp`'s arithmetic per
    domain (:func:`bom.topology.scaleup.scale_up`, from the same rules), no media lookup per run; the
    plan walks every site's domains once (``bom cables --scale-up``)."""

    def count(self, ctx: HopContext[ScaleUpView]) -> list[LinkGroup]:
        return []

    def pairs(self, ctx: HopContext[ScaleUpView]) -> Iterator[Item]:
        raise NotImplementedError("counted per domain by the ScaleUp, walked by rows()")

    def link(self, ctx: HopContext[ScaleUpView]) -> Link:
        raise NotImplementedError("nothing is bought per scale-up link")

    def plan_sites(self, view: ScaleUpView) -> tuple[int, ...]:
        return (1,)


class SwitchedLinks(InDomain):
    """GPU to switch chip (or GPU to GPU without one), electrical, inside the domain."""

    name = hop = HopKind.GPU_NVSWITCH
    lower, upper = Layer.NODE, Layer.NVSWITCH

    def applies(self, ctx: HopContext[ScaleUpView]) -> bool:
        su = ctx.view.system.scale_up
        return su.torus is None and self.listed(su)

    def links(self, su: ScaleUpSpec, gpus: int) -> int:
        """Electrical links of ``gpus`` GPUs: one per GPU link end with switch chips, half without."""
        ends = gpus * su.links_per_gpu
        return ends if su.switch_chips_per_domain else ends // 2

    def listed(self, su: ScaleUpSpec) -> bool:
        """Whether the plan lists them: only to switch chips (a GPU-to-GPU trace has no far port)."""
        return bool(su.links_per_gpu and su.switch_chips_per_domain)

    @staticmethod
    def chip(link: int, chips: int, links: int, rack: int = 0, racks: int = 1) -> int:
        """The switch chip a GPU's ``link``-th link goes to: the even spread over the chips of the
        GPU's own ``rack`` of the domain's ``racks`` (a domain over two racks: each rack's chips take its
        own GPUs on its cable cartridges, :class:`InterRackLinks` joins the racks).

        >>> SwitchedLinks.chip(17, 18, 18), SwitchedLinks.chip(17, 36, 18, 0, 2), SwitchedLinks.chip(0, 36, 18, 1, 2)
        (17, 17, 18)
        """
        per_rack = chips // racks
        return rack * per_rack + link * per_rack // links

    def rows(self, ctx: HopContext[ScaleUpView]) -> Rows:
        plan = ctx.plan
        assert plan is not None
        p: Platform = ctx.view.system
        su = p.scale_up
        chips, links, trays = su.switch_chips_per_domain, su.links_per_gpu, su.switch_trays_per_domain
        per_tray = chips // trays if trays else chips
        nodes_per_domain = max(1, p.gpus_per_domain // p.gpus_per_node)
        racks, rack_gpus = p.racks_per_system, p.gpus_per_domain // p.racks_per_system
        head = (Tier.SCALE_UP, "nvlink", self.name)
        tail = ("copper", "", "in system", "", 0, "", "", "in-system", 0, "NVLink spine" if trays else "baseboard")
        site = 0
        for shape in ctx.view.sites_nodes:
            for _ in range(shape.count):
                site += 1
                for n in range(shape.nodes):
                    node = plan.place(Layer.NODE, site, n)
                    d, local = divmod(n, nodes_per_domain)
                    for g in range(p.gpus_per_node):
                        gpu = local * p.gpus_per_node + g      # the GPU's number in its domain
                        rack = gpu // rack_gpus
                        for lk in range(links):
                            t, chip = divmod(self.chip(lk, chips, links, rack, racks), per_tray)
                            far = plan.place(Layer.NVLINK_SWITCH, site, d * trays + t) if trays else node
                            a_port = f"gpu{g + 1}-nvl{lk + 1}"
                            b_port = f"nvs{chip + 1}-p{gpu % rack_gpus + 1}-l{lk + 1}"
                            yield (f"C{next(plan.cable):08d}", f"{node[1]}:{a_port} / {far[1]}:{b_port}",
                                   f"L{next(plan.link):08d}", "", *head, "", "", *node[0], a_port, "", *far[0],
                                   b_port, "", *tail)
                plan.forget(site)


class TorusLinks(InDomain):
    """A torus's cube faces on optics to optical circuit switches (the copper inside a cube is counted, not listed)."""

    name = hop = HopKind.CUBE_OCS
    lower, upper = Layer.NODE, Layer.OCS

    def applies(self, ctx: HopContext[ScaleUpView]) -> bool:
        return ctx.view.system.scale_up.torus is not None

    @staticmethod
    def cube_links(t: Torus) -> tuple[int, int, int]:
        """Copper links inside one cube, optical links leaving it, and OCS groups per domain.

        >>> from bom.catalog.rows import ScaleUpPart, Torus
        >>> part = dict(vendor="x", part_number="x", description="x", power="1 W", price_usd=0,
        ...             price_source="estimate", source="x")
        >>> t = Torus(cube=[4, 4, 4], ocs=ScaleUpPart(id="o", ports=136, **part),
        ...           optic=ScaleUpPart(id="m", **part), fibre=ScaleUpPart(id="f", **part))
        >>> TorusLinks.cube_links(t)
        (144, 96, 48)
        """
        faces = [t.face(d) for d in range(len(t.cube))]
        return TorusLinks.mesh_links(t.cube), 2 * sum(faces), sum(faces)

    @staticmethod
    def mesh_links(shape: list[int]) -> int:
        """Copper links of a mesh of ``shape`` chips (no wraparound): a cube's inside, or a slice smaller than a cube.

        >>> TorusLinks.mesh_links([4, 4, 4]), TorusLinks.mesh_links([2, 2, 1]), TorusLinks.mesh_links([2, 4, 4])
        (144, 4, 64)
        """
        chips = math.prod(shape)
        return sum((n - 1) * (chips // n) for n in shape)

    @staticmethod
    def per_group(t: Torus, cubes: int) -> int:
        """Switches in one OCS group of a domain of ``cubes`` cubes: the group joins 2 x cubes ports."""
        return math.ceil(2 * cubes / (t.ocs.ports or 1))

    def ocs_per_domain(self, t: Torus, cubes: int) -> int:
        return self.cube_links(t)[2] * self.per_group(t, cubes)

    def ocs(self, p: Platform, t: Torus, cubes: int) -> int:
        """Switches for ``cubes`` cubes: full domains, then the last domain's own."""
        full, rest = divmod(cubes, p.gpus_per_domain // t.chips)
        return full * self.ocs_per_domain(t, p.gpus_per_domain // t.chips) + (self.ocs_per_domain(t, rest)
                                                                              if rest else 0)

    def rows(self, ctx: HopContext[ScaleUpView]) -> Rows:
        plan = ctx.plan
        assert plan is not None
        p: Platform = ctx.view.system
        t = p.scale_up.torus
        assert t is not None
        ports = t.ocs.ports or 1
        cubes_per_domain = p.gpus_per_domain // t.chips
        dims = len(t.cube)
        offsets = [sum(t.face(e) for e in range(d)) for d in range(dims)]
        head = (Tier.SCALE_UP, "ici", self.name)
        tail = ("smf-duplex", "", "os2 lc-duplex", t.fibre.part_number, t.fibre.strands, "", "", "", 0, Layer.OCS)
        site = 0
        for shape in ctx.view.sites_nodes:
            cubes = shape.nodes // p.nodes_per_system
            for _ in range(shape.count):
                site += 1
                for c in range(cubes):
                    dom, local = divmod(c, cubes_per_domain)
                    per_group = self.per_group(t, min(cubes_per_domain, cubes - dom * cubes_per_domain))
                    base = dom * self.ocs_per_domain(t, cubes_per_domain)
                    for d in range(dims):
                        for k in range(t.face(d)):
                            for side in (0, 1):
                                chip = self._chip(t, d, k, side)
                                node = plan.place(Layer.NODE, site, c * p.nodes_per_system + chip // p.gpus_per_node)
                                sub, port = divmod(2 * local + side, ports)
                                ocs = plan.place(Layer.OCS, site, base + (offsets[d] + k) * per_group + sub)
                                a_port = f"tpu{chip % p.gpus_per_node + 1}-d{d + 1}{'+-'[side == 0]}"
                                b_port = f"p{port + 1}"
                                yield (f"C{next(plan.cable):08d}", f"{node[1]}:{a_port} / {ocs[1]}:{b_port}",
                                       f"L{next(plan.link):08d}", "", *head, "", "", *node[0], a_port,
                                       t.optic.part_number, *ocs[0], b_port, "", *tail)
                plan.forget(site)

    @staticmethod
    def _chip(t: Torus, d: int, k: int, side: int) -> int:
        """The chip at position ``k`` of dimension ``d``'s face ``side`` (chip numbers run x fastest)."""
        dims = len(t.cube)
        coord = [0] * dims
        rest = k
        for e in (e for e in range(dims) if e != d):
            rest, coord[e] = divmod(rest, t.cube[e])[0], rest % t.cube[e]
        coord[d] = side * (t.cube[d] - 1)
        chip = 0
        for e in reversed(range(dims)):
            chip = chip * t.cube[e] + coord[e]
        return chip


class InterRackLinks(InDomain):
    """A domain over two racks (GB200 NVL36x2): switch chip ``c`` of the first rack to chip ``c`` of the
    second, one link for each of the first rack's GPU links it switches (its ports split half to its own
    GPUs, half across), ``links_per_cable`` of them in one cable from tray to tray (the row's bundle)."""

    name = hop = HopKind.NVSWITCH_NVSWITCH
    lower, upper = Layer.NVSWITCH, Layer.NVSWITCH

    def applies(self, ctx: HopContext[ScaleUpView]) -> bool:
        return ctx.view.system.scale_up.inter_rack is not None

    @staticmethod
    def per_domain(p: Platform) -> tuple[int, int]:
        """Links between a domain's two racks and the cables that carry them: each rack's GPU links, as
        many as its chips switch to the other rack.

        >>> from types import SimpleNamespace as N
        >>> su = N(links_per_gpu=18, inter_rack=N(links_per_cable=4))
        >>> InterRackLinks.per_domain(N(gpus_per_domain=72, racks_per_system=2, scale_up=su))   # NVL36x2
        (648, 162)
        """
        su, ir = p.scale_up, p.scale_up.inter_rack
        if ir is None:
            return 0, 0
        links = p.gpus_per_domain // p.racks_per_system * su.links_per_gpu
        return links, -(-links // ir.links_per_cable)

    def rows(self, ctx: HopContext[ScaleUpView]) -> Rows:
        plan = ctx.plan
        assert plan is not None
        p: Platform = ctx.view.system
        su, ir = p.scale_up, p.scale_up.inter_rack
        assert ir is not None
        chips, trays = su.switch_chips_per_domain // 2, su.switch_trays_per_domain // 2   # a rack's
        per_tray, across = chips // trays, self.per_domain(p)[0] // chips               # a chip's ports across
        down = p.gpus_per_domain // 2                                                    # its ports to GPUs
        nodes_per_domain = p.gpus_per_domain // p.gpus_per_node
        head = (Tier.SCALE_UP, "nvlink", self.name)
        site = 0
        for shape in ctx.view.sites_nodes:
            for _ in range(shape.count):
                site += 1
                for d in range(shape.nodes // nodes_per_domain):
                    # The route between the domain's two racks (the floor plan's one rule for a run): the
                    # generic cable is sold by no published length, so the row has no sold length.
                    run = plan.run((Layer.NVLINK_SWITCH, d * 2 * trays), (Layer.NVLINK_SWITCH, d * 2 * trays + trays),
                                   site, ctx.fp)
                    tail = ("copper", "", "rack to rack", ir.cable.part_number, 0, run.length_m, "", run.bucket, 0, "")
                    for c in range(chips):
                        t = c // per_tray
                        a = plan.place(Layer.NVLINK_SWITCH, site, d * 2 * trays + t)
                        b = plan.place(Layer.NVLINK_SWITCH, site, d * 2 * trays + trays + t)
                        for k in range(across):
                            # The tray's cages count its chips' ports across in order, links_per_cable a cage.
                            cage = ((c % per_tray) * across + k) // ir.links_per_cable + 1
                            port = f"nvs{c % per_tray + 1}-p{down + k + 1}"   # the same port at both ends
                            yield (f"C{next(plan.cable):08d}", f"{a[1]}:{port} / {b[1]}:{port}",
                                   f"L{next(plan.link):08d}", f"{a[1]}:osfp{cage}", *head, "", "", *a[0], port,
                                   "", *b[0], port, "", *tail)
                plan.forget(site)


SWITCHED = SwitchedLinks()
TORUS = TorusLinks()
INTER_RACK = InterRackLinks()


def scale_up_row_count(platform: Platform, links: int, optical_links: int, inter_rack_links: int = 0) -> int:
    """Rows the scale-up patterns yield in the plan, from the closed form's counts (a domain over two
    racks adds a row per link between them)."""
    if platform.scale_up.torus is not None:
        return optical_links
    return (links if SWITCHED.listed(platform.scale_up) else 0) + inter_rack_links
