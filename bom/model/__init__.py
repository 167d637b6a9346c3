"""The model's data types: every value that crosses a stage, frozen (no stage logic).

Public surface: :class:`bom.model.model.Design` and :class:`~bom.model.model.Model`; the fabrics
(:mod:`.fabrics`), planes (:mod:`.plane`), cluster (:mod:`.cluster`), DCI (:mod:`.dci`), endpoints
(:mod:`.endpoints`), placement and floor (:mod:`.placement`, :mod:`.floor`), floor plan and runs
(:mod:`.floorplan`), link groups (:mod:`.linkgroups`), sizing and parallelism (:mod:`.sizing`,
:mod:`.parallelism`), the design rules' results (:mod:`.checks`), typed totals (:mod:`.totals`), the
power plan (:mod:`.power`), and
the tables of hops (:mod:`.hops`) and fabric roles (:mod:`.roles`).
"""
