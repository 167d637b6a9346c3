"""Design rules: every link the tool lists can be built (docs/architecture.md, "Design rules").

:func:`bom.rules.run.check` runs them over a model; :mod:`bom.rules.registry` lists them; each
family is a module (``ends``, ``ports``, ``lengths``, ``placement``, ``power``, ``complete``) over the small
core (:mod:`bom.model.checks`: Rule, Violation, Checks).
"""
