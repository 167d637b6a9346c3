"""What changes between two designs (``bom diff``): the figures of their builds' JSON
(:mod:`bom.diff.summary`), their devices (:mod:`bom.diff.devices`) and their cable plans
(:mod:`bom.diff.cables`, streamed), gathered in :class:`bom.diff.result.Diff` (its JSON's records:
:mod:`bom.diff.records`)."""
