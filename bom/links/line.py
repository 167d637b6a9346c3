"""Scale-across: the coherent line side between sites (hops ``site-site`` and ``fibre-pair``).

One pattern. A site's router ports are its client ports (:mod:`bom.links.dci`), then its line
ports, router by router (:func:`router_port`). Per cabled site pair (mesh, ring or hub:
:attr:`bom.model.dci.Dci.site_pairs`): a wavelength per line port at each end, a coherent module in
each; ``ceil(wavelengths / channels)`` fibre pairs, wavelength ``w`` on fibre pair ``w // channels``
at channel ``w % channels``, with a mux/demux at each end of each fibre pair (without one a wavelength
is its own fibre pair). The counting rules are the model's (:class:`bom.model.dci.LineRules`), which
the closed form (:func:`bom.topology.dci.build_dci` and the Dci's figures) takes; the cable plan walks
them in :meth:`DciLine.rows`, once for every cabled site pair.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bom import names
from bom.links.pattern import HopContext, Item, Link, Pattern, Rows
from bom.links.views import DciView
from bom.model.dci import DARK_FIBRE_SKU, LineRules
from bom.model.hops import HopKind
from bom.roles import FabricRole, Layer, Tier
from bom.topology.geometry import route

if TYPE_CHECKING:
    from bom.links.ports import RowState
    from bom.model.dci import Dci
    from bom.model.floorplan import FloorPlan
    from bom.model.linkgroups import LinkGroup
    from bom.model.placement import Placement


def router_port(dci: Dci, c: int) -> tuple[int, int]:
    """(router, port) of a site's ``c``-th router port: client ports first, then line ports."""
    return divmod(c, dci.router.ports)


class DciLine(LineRules, Pattern[DciView]):
    """The coherent line side: router line ports, mux/demux channels and fibre pairs per cabled
    site pair. Its closed form is the :class:`~bom.model.dci.Dci`'s figures (the same
    :class:`~bom.model.dci.LineRules`), no media lookup per run: :meth:`count` has no link groups, and
    the plan walks the line once, every cabled site pair (:meth:`plan_sites`)."""

    hop, lower, upper = HopKind.SITE_SITE, Layer.ROUTER, Layer.MUX
    name, pair_hop = HopKind.SITE_SITE, HopKind.FIBRE_PAIR

    def count(self, ctx: HopContext[DciView]) -> list[LinkGroup]:
        return []

    def pairs(self, ctx: HopContext[DciView]) -> Iterator[Item]:
        raise NotImplementedError("the line is counted by LineRules and walked by rows()")

    def link(self, ctx: HopContext[DciView]) -> Link:
        raise NotImplementedError("the coherent part is the Dci's choice")

    def plan_sites(self, view: DciView) -> tuple[int, ...]:
        return (1,)

    def rows(self, ctx: HopContext[DciView]) -> Rows:
        assert ctx.plan is not None
        return self.line_rows(ctx.plan, ctx.view.line, ctx.fp, ctx.view.router_names, DARK_FIBRE_SKU)

    def line_port(self, plan: RowState, dci: Dci, site: int, c: int, router_names: list[str]
                  ) -> tuple[tuple[tuple[object, ...], str], str, int]:
        """The router, port and router number of a site's ``c``-th line port: past the site's client ports."""
        r, port = router_port(dci, dci.site_links(site) + c)
        return plan.place(Layer.ROUTER, site, r), router_names[port], r

    def patch_m(self, dci: Dci, placement: Placement, fp: FloorPlan) -> float:
        """The longest patch from a line port to its mux/demux channel, over every site: what the one
        cord the BOM buys must reach (a site's routers and muxes stand in its own racks)."""
        longest = fp.in_rack_m
        done: set[tuple[object, ...]] = set()
        for site in range(1, dci.sites + 1):
            n_routers = math.ceil(self.site_ports(dci.site_links(site)) / dci.router.ports)
            n_muxes = dci.fibre_pairs_per_pair * dci.degrees[site - 1]
            # Sites whose own racks stand alike and hold as many routers and muxes patch alike: once.
            key = (placement.own_key(site), n_routers, n_muxes)
            if key in done:
                continue
            done.add(key)
            routers = {placement.own_spot(site, Layer.ROUTER, r) for r in range(n_routers)}
            muxes = {placement.own_spot(site, Layer.MUX, m) for m in range(n_muxes)}
            # the terminal amplifiers' cords to the muxes' line ports are the same cord
            amps = {placement.own_spot(site, Layer.AMPLIFIER, a)
                    for a in range(self.terminal_units(dci) * len(muxes))}
            longest = max([longest] + [route(a, b, fp).length_m for a in routers | amps for b in muxes])
        return longest

    def line_rows(self, plan: RowState, dci: Dci, fp: FloorPlan, router_names: list[str], fibre_part: str) -> Rows:
        """Every site pair's rows (``fibre_part``: what the BOM buys per fibre pair)."""
        module = dci.coherent.part_number
        wpp, channels, fpp = dci.wavelengths_per_pair, dci.channels, dci.fibre_pairs_per_pair
        rate = dci.wavelength_gbps
        head = (Tier.SCALE_ACROSS, FabricRole.DCI, self.name)
        amp = ""
        if dci.inline_sites or dci.amplified:
            part = dci.amplifier.part_number if dci.amplifier is not None else Layer.AMPLIFIER
            terminal = len(dci.end_stages) if dci.amplified else 0
            amp = f"{dci.inline_sites} in-line amplifier sites, {dci.inline_sites + terminal} x {part} per pair"
            if terminal and dci.placement != "both":
                amp += f" ({dci.placement} only at each end)"
        distance = dci.distance_m
        pair_tail = ("smf-duplex", rate, "os2 dark fibre pair", fibre_part, 2, distance, distance, "route", 0, amp)
        mux_names = [names.port(ch + 1) for ch in range(channels)]
        patch_part, patch_m = (dci.patch.part_number, dci.patch.length_m) if dci.patch is not None else ("", "")
        for a, b in dci.site_pairs or itertools.combinations(range(1, dci.sites + 1), 2):
            # This pair's place among each site's cabled pairs: its first wavelength and mux/demux there.
            ia, ib = dci.neighbours(a).index(b), dci.neighbours(b).index(a)
            ca, cb = ia * wpp, ib * wpp
            for fpair in range(fpp):
                waves = self.waves(wpp, channels, fpair)
                if dci.mux is None:
                    for w in waves:
                        ra, pa, _ = self.line_port(plan, dci, a, ca + w, router_names)
                        rb, pb, _ = self.line_port(plan, dci, b, cb + w, router_names)
                        yield (f"C{next(plan.cable):08d}", f"{ra[1]}:{pa} / {rb[1]}:{pb}", f"L{next(plan.link):08d}",
                               "", *head, "", "", *ra[0], pa, module, *rb[0], pb, module, "coherent", rate,
                               "os2 dark fibre pair", fibre_part, 2, distance, distance, "route", 0, amp)
                    continue
                ma = plan.place(Layer.MUX, a, ia * fpp + fpair)
                mb = plan.place(Layer.MUX, b, ib * fpp + fpair)
                for w in waves:
                    lid = f"L{next(plan.link):08d}"
                    ch = mux_names[w % channels]
                    for site, c, mux, m in ((a, ca + w, ma, ia * fpp + fpair), (b, cb + w, mb, ib * fpp + fpair)):
                        r, port, n = self.line_port(plan, dci, site, c, router_names)
                        run = plan.run((Layer.ROUTER, n), (Layer.MUX, m), site, fp)
                        # The patch from the line port to its mux channel (patch_cords counts them).
                        yield (f"C{next(plan.cable):08d}", f"{r[1]}:{port} / {mux[1]}:{ch}", lid, "", *head, "", "",
                               *r[0], port, module, *mux[0], ch, "", "coherent", rate, "lc-duplex patch",
                               patch_part, 2, run.length_m, patch_m, run.bucket, 0,
                               f"channel {w % channels + 1} of {channels}")
                yield (f"C{next(plan.cable):08d}", f"{ma[1]}:line / {mb[1]}:line", "", "", Tier.SCALE_ACROSS,
                       FabricRole.DCI, self.pair_hop, "", "", *ma[0], "line", "", *mb[0], "line", "", *pair_tail)


DCI_LINE = DciLine()


class AmplifierPatch(LineRules, Pattern[DciView]):
    """The terminal amplifiers' patch cords (hop ``mux-amplifier``): at each end of each amplified fibre
    pair, every rack-mounted amplifier unit there (a booster and a pre-amplifier, or one unit of both
    stages) is patched to the fibre pair's mux/demux line port, on the line port's own fibre: the
    booster takes the transmit fibre (``line/1``), the pre-amplifier gives the receive fibre
    (``line/2``); the route row stays mux to mux (the leased dark fibre pair the amplifiers stand in).
    Counted by :meth:`LineRules.amplifier_patch_cords` (the BOM's cords, the JSON's
    ``amplifier_patch_cords``); the amplifiers are the model's (:attr:`bom.model.dci.Dci.amplifiers`,
    standing where the placement's own sections put them, unit ``m * units + k`` beside mux ``m``)."""

    hop, lower, upper = HopKind.MUX_AMPLIFIER, Layer.MUX, Layer.AMPLIFIER
    name = HopKind.MUX_AMPLIFIER

    def applies(self, ctx: HopContext[DciView]) -> bool:
        return self.terminal_units(ctx.view.line) > 0

    def count(self, ctx: HopContext[DciView]) -> list[LinkGroup]:
        return []   # the Dci's figure (amplifier_patch_cords), as the line's own cords

    def pairs(self, ctx: HopContext[DciView]) -> Iterator[Item]:
        raise NotImplementedError("the cords are counted by LineRules and walked by rows()")

    def link(self, ctx: HopContext[DciView]) -> Link:
        raise NotImplementedError("the cord is the Dci's patch")

    def plan_sites(self, view: DciView) -> tuple[int, ...]:
        return (1,)

    def rows(self, ctx: HopContext[DciView]) -> Rows:
        assert ctx.plan is not None
        plan, dci, fp = ctx.plan, ctx.view.line, ctx.fp
        units = self.terminal_units(dci)
        head = (Tier.SCALE_ACROSS, FabricRole.DCI, self.name)
        part, sold = (dci.patch.part_number, dci.patch.length_m) if dci.patch is not None else ("", "")
        wpp, channels, fpp = dci.wavelengths_per_pair, dci.channels, dci.fibre_pairs_per_pair
        # the stages standing at each end, as sites.amplifiers says: the booster on the mux/demux's transmit
        # fibre (line/1), the pre-amplifier on its receive fibre (line/2); one unit of both on line/1
        ends = [(f"line/{STAGE_PORT[s]}", STAGE_TEXT[s]) for s in dci.end_stages] if units == len(dci.end_stages) \
            else [("line/1", "booster and pre-amplifier")]
        for site in range(1, dci.sites + 1):
            for m in range(dci.site_muxes(site)):
                mux = plan.place(Layer.MUX, site, m)
                rate = len(self.waves(wpp, channels, m % fpp)) * dci.wavelength_gbps   # what the fibre pair carries
                for k, (port, what) in enumerate(ends):
                    a = m * units + k
                    amp = plan.place(Layer.AMPLIFIER, site, a)
                    run = plan.run((Layer.MUX, m), (Layer.AMPLIFIER, a), site, fp)
                    yield (f"C{next(plan.cable):08d}", f"{mux[1]}:{port} / {amp[1]}:p1", "", "", *head, "", "",
                           *mux[0], port, "", *amp[0], "p1", "", "smf-duplex", rate, "lc-duplex patch", part, 2,
                           run.length_m, sold, run.bucket, 0, what)


#: The mux/demux line port's fibre each amplifier stage is patched to, and what the plan row says of it.
STAGE_PORT = {"booster": 1, "pre-amp": 2}
STAGE_TEXT = {"booster": "booster (transmit)", "pre-amp": "pre-amplifier (receive)"}

AMPLIFIER_PATCH = AmplifierPatch()
