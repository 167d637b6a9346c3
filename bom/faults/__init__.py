"""What breaks when something breaks: failure domains, interruptions and goodput, redundancy priced (issue 48).

A stage above the costing: it reads a built model and its report (the TCO, the lines' prices) and writes
nothing itself; `bom faults` prints and publishes it.
"""

from bom.faults.domains import Domain, fault_domains
from bom.faults.goodput import Goodput, goodput, optimal_interval
from bom.faults.power import RackPower, rack_power
from bom.faults.rates import Rate, failure_rates
from bom.faults.result import Faults, FaultsJson, analyse

__all__ = ["Domain", "Faults", "FaultsJson", "Goodput", "RackPower", "Rate", "analyse", "failure_rates",
           "fault_domains", "goodput", "optimal_interval", "rack_power"]
