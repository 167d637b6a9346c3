"""What the user gives: scenario files and their validation.

Public surface: :func:`bom.inputs.scenario.load_scenario` and :class:`~bom.inputs.scenario.Scenario`
(every rule that needs only the scenario is a validator there); :mod:`bom.inputs.workload` (a job);
:mod:`bom.inputs.yamlio` (:class:`~bom.inputs.yamlio.Located`: the line of every key);
:mod:`bom.inputs.validation` (quantities, suggestions, :func:`~bom.inputs.validation.located`);
:func:`bom.inputs.schema.scenario_schema` (`bom schema`).
"""
