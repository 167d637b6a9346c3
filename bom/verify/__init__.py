"""As-built verification: what discovery sees (LLDP, ibnetdiscover) against the cable plan."""
