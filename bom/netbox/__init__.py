"""The planned cluster in NetBox: bulk-import files (:mod:`.export`), a push through its REST API
(:mod:`.push`) and a diff of the plan against what NetBox holds now (:mod:`.diff`).

:mod:`.inventory` turns the model and one pass over the cable plan into NetBox's objects
(sites, locations for rows, racks, manufacturers, device roles, device types with interface
templates, devices at their rack units, cables); :mod:`.power` the power plan's (power ports and
outlets on the types, power panels and feeds, power cables); :mod:`.choices` holds the NetBox choice values
they use. Tested against NetBox 4.7.3 (tests/netbox/).
"""
