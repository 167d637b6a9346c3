#!/usr/bin/env bash
# Stops what scripts/netbox-up.sh started (by the PIDs in its state file) and removes its data.
# Only this checkout's (scripts/netbox-dir.sh): a state file another checkout wrote is left alone.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
DIR=$(bash "$REPO/scripts/netbox-dir.sh")
STATE=$DIR/state.env
[[ -f $STATE ]] || { echo "netbox-down: nothing to stop ($STATE missing)" >&2; exit 0; }
# shellcheck disable=SC1090
source "$STATE"
if [[ ${NETBOX_CHECKOUT:-} != "$REPO" ]]; then
    echo "netbox-down: $STATE belongs to ${NETBOX_CHECKOUT:-an older or unknown checkout}, not $REPO: left alone" >&2
    exit 1
fi
# each started with setsid: its process group is the server and what it forked (gunicorn's workers)
for pid in ${WEB_PID:-} ${RQ_PID:-}; do
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null
done
[[ -n ${REDIS_PID:-} ]] && kill "$REDIS_PID" 2>/dev/null
if [[ -d $DIR/pg ]]; then
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$DIR/pg" -m fast -w stop >/dev/null 2>&1 \
        || { [[ -n ${PG_PID:-} ]] && kill "$PG_PID" 2>/dev/null; }
fi
sleep 1
rm -rf "$DIR"
echo "netbox-down: stopped" >&2
