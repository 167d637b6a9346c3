#!/usr/bin/env bash
# Prints the folder of this checkout's throw-away NetBox (scripts/netbox-up.sh writes its data and
# state.env there; netbox-down.sh, scripts/test.sh and tests/netbox/live.py read it from here).
# One folder per checkout, so a run never finds, uses or empties another checkout's NetBox:
# $BOM_NETBOX_DIR when set, else /tmp/clusterbom-netbox-<first 12 hex digits of the SHA-256 of the
# checkout's physical path>. Under /tmp rather than in the checkout: PostgreSQL runs there as the
# postgres user, who must be able to reach the folder (a checkout under /root is not reachable), and
# its socket path must stay under 108 bytes. tests/netbox/live.py computes the same
# (tests/netbox/test_state_dir.py checks that they agree).
set -euo pipefail
if [[ -n ${BOM_NETBOX_DIR:-} ]]; then
    echo "$BOM_NETBOX_DIR"
    exit 0
fi
repo=$(cd "$(dirname "$0")/.." && pwd -P)
echo "/tmp/clusterbom-netbox-$(printf %s "$repo" | sha256sum | cut -c1-12)"
