#!/usr/bin/env bash
# Brings up a throw-away NetBox for the live tests (tests/netbox/test_live.py):
# PostgreSQL and Redis private to this run on 127.0.0.1 only, NetBox 4.7.3 from PyPI in its own
# venv on a Python 3.12 or later (find_python below; the product stays on 3.11), a superuser and a v2 API token.
# Idempotent: a second run with the NetBox still answering only prints the state file.
# The slow part of a cold start is `netbox migrate` (~12 min CPU); the database dump committed at
# tests/netbox/fixtures/netbox-4.7.3.dump (written by the first migrate) restores in seconds.
# Recipe and measurements: ../shared/reference/tooling-notes.md "A real NetBox on these machines".
#
# Which server (BOM_NETBOX_SERVER):
#   runserver (the default, what the live tests and CI use): Django's development server, one process, no
#             RQ worker; the quickest to start (CI's time goes to the live tests already).
#   gunicorn  as sites run NetBox (its contrib/gunicorn.py and netbox-rq.service): gunicorn with
#             BOM_NETBOX_GUNICORN_WORKERS workers (default 2n+1 for n cores, NetBox's advice) of 3 threads,
#             a 120 s request timeout, and the RQ worker (`netbox rqworker high default low`) that runs
#             scripts and other background jobs. The app is loaded once before the fork (--preload): one
#             Django start instead of one per worker.
#   BOM_NETBOX_ACCOUNT=<file> (gunicorn only; benchmarks/bench_netbox_account.py): the accounting hooks of
#             benchmarks/bench_netbox_hooks.py loaded into gunicorn (CPU per request) and the RQ worker (CPU per
#             job and per forked work horse), one JSON line per event appended to <file>. Off by default.
set -euo pipefail
SERVER=${BOM_NETBOX_SERVER:-runserver}
case $SERVER in
    runserver | gunicorn) ;;
    *) echo "netbox-up: BOM_NETBOX_SERVER is '$SERVER'; give runserver (the default) or gunicorn" >&2; exit 2 ;;
esac

NETBOX_VERSION=4.7.3
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
VENV=${BOM_NETBOX_VENV:-$HOME/.cache/clusterbom/netbox-$NETBOX_VERSION}
# This checkout's own folder (scripts/netbox-dir.sh): another checkout's NetBox is never found,
# reused or stopped from here. The state file names the checkout (NETBOX_CHECKOUT) and the live
# tests use only a state file of their own checkout.
DIR=$(bash "$REPO/scripts/netbox-dir.sh")
STATE=$DIR/state.env
DUMP=$REPO/tests/netbox/fixtures/netbox-$NETBOX_VERSION.dump
PGBIN=/usr/lib/postgresql/15/bin

say() { echo "netbox-up: $*" >&2; }

if [[ -f $STATE ]]; then
    # shellcheck disable=SC1090
    source "$STATE"
    if [[ ${NETBOX_CHECKOUT:-} != "$REPO" ]]; then
        say "$STATE belongs to ${NETBOX_CHECKOUT:-an older or unknown checkout}, not $REPO: left alone;"
        say "set BOM_NETBOX_DIR to a folder of this checkout's own (or unset it)"
        exit 1
    fi
    if [[ -n ${NETBOX_URL:-} ]] &&
        curl -fsS -o /dev/null -H "Authorization: Bearer ${NETBOX_TOKEN:-}" "$NETBOX_URL/api/status/" 2>/dev/null; then
        say "already up at $NETBOX_URL (state in $STATE)"
        echo "$STATE"
        exit 0
    fi
    say "stale state file; stopping what is left and starting again"
    "$REPO/scripts/netbox-down.sh" || true
fi

# --- system packages (Debian): Redis, libpq headers for psycopg, PostgreSQL 15 -------------------
missing=()
for p in redis-server libpq-dev postgresql gcc curl; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    say "apt-get install ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- the Python NetBox needs: 3.12 or later (NetBox 4.5 dropped 3.10 and 3.11) -------------------
# In order: $BOM_NETBOX_PYTHON; a python3.12+ on the PATH; Debian's own (Debian 13 ships python3.13:
# installed here with its venv module when apt has it); a pyenv-installed 3.12+. Debian 12's only
# Python is 3.11, and PyPI serves no interpreter: there the live tests cannot run (say so, exit 3).
py_ok() { "$1" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; }
find_python() {
    local c
    if [[ -n ${BOM_NETBOX_PYTHON:-} ]]; then echo "$BOM_NETBOX_PYTHON"; return; fi
    for c in python3.14 python3.13 python3.12 python3; do
        c=$(command -v "$c" 2>/dev/null) && py_ok "$c" && { echo "$c"; return; }
    done
    if [[ $(id -u) = 0 ]] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1 || true
        for c in python3.14 python3.13 python3.12; do
            if apt-cache show "$c-venv" >/dev/null 2>&1; then
                say "apt-get install $c $c-venv (Debian's Python for NetBox)"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$c" "$c-venv" >/dev/null
                py_ok "/usr/bin/$c" && { echo "/usr/bin/$c"; return; }
            fi
        done
    fi
    for c in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python; do
        [[ -x $c ]] && py_ok "$c" && { echo "$c"; return; }
    done
    return 1
}

# --- NetBox in its own venv ---------------------------------------------------------------------
if ! "$VENV/bin/netbox" version 2>/dev/null | grep -q "$NETBOX_VERSION"; then
    PY312=$(find_python) || {
        say "NetBox $NETBOX_VERSION needs Python 3.12 or later: none on the PATH, in apt (Debian 12 has 3.11 only)"
        say "or in pyenv; give one with BOM_NETBOX_PYTHON=/path/to/python3.12"
        exit 3
    }
    say "creating venv $VENV with netbox==$NETBOX_VERSION on $PY312 ($("$PY312" --version 2>&1))"
    "$PY312" -m venv "$VENV"
    "$VENV/bin/pip" install -q "netbox==$NETBOX_VERSION" 2>&1 | grep -v "^WARNING: Location" || true
    "$VENV/bin/netbox" version >/dev/null
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
rand() { python3 -c "import secrets,string; a=string.ascii_letters+string.digits; print(''.join(secrets.choice(a) for _ in range($1)))"; }

mkdir -p "$DIR"
chmod 755 "$DIR"
PGPORT=$(free_port)
REDISPORT=$(free_port)
WEBPORT=$(free_port)
DBPASS=$(rand 24)

# --- PostgreSQL: a private cluster, 127.0.0.1 only, durability off (throw-away data) --------------
rm -rf "$DIR/pg" "$DIR/pgsock"
mkdir -p "$DIR/pg" "$DIR/pgsock"
touch "$DIR/pg.log"
chown postgres:postgres "$DIR/pg" "$DIR/pgsock" "$DIR/pg.log"
runuser -u postgres -- "$PGBIN/initdb" -D "$DIR/pg" -A trust -U postgres >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DIR/pg" -l "$DIR/pg.log" -w start -o \
    "-p $PGPORT -k $DIR/pgsock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" >/dev/null
PG_PID=$(head -1 "$DIR/pg/postmaster.pid")
psql_su() { runuser -u postgres -- psql -h "$DIR/pgsock" -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -q "$@"; }
psql_su -c "CREATE USER netbox PASSWORD '$DBPASS'" -c "CREATE DATABASE netbox OWNER netbox"

# --- Redis: 127.0.0.1, no persistence ------------------------------------------------------------
redis-server --port "$REDISPORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$DIR" \
    --daemonize yes --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log"
for _ in $(seq 50); do [[ -s $DIR/redis.pid ]] && break; sleep 0.1; done
REDIS_PID=$(cat "$DIR/redis.pid")

# write the state early so netbox-down.sh can stop whatever started, even if a later step fails
cat > "$STATE" <<STATE
NETBOX_CHECKOUT=$REPO
PG_PID=$PG_PID
REDIS_PID=$REDIS_PID
BOM_NETBOX_DIR=$DIR
STATE

# --- NetBox configuration --------------------------------------------------------------------------
export NETBOX_ROOT=$DIR/root
mkdir -p "$NETBOX_ROOT/conf" "$NETBOX_ROOT/media" "$NETBOX_ROOT/reports" "$NETBOX_ROOT/scripts"
cat > "$NETBOX_ROOT/conf/configuration.py" <<CONF
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'NAME': 'netbox', 'USER': 'netbox',
    'PASSWORD': '$DBPASS', 'HOST': '127.0.0.1', 'PORT': '$PGPORT', 'CONN_MAX_AGE': 300}}
REDIS = {
    'tasks': {'HOST': '127.0.0.1', 'PORT': $REDISPORT, 'DATABASE': 0, 'SSL': False, 'PASSWORD': ''},
    'caching': {'HOST': '127.0.0.1', 'PORT': $REDISPORT, 'DATABASE': 1, 'SSL': False, 'PASSWORD': ''},
}
SECRET_KEY = '$(rand 60)'
API_TOKEN_PEPPERS = {1: '$(rand 60)'}
MEDIA_ROOT = '$NETBOX_ROOT/media'
REPORTS_ROOT = '$NETBOX_ROOT/reports'
SCRIPTS_ROOT = '$NETBOX_ROOT/scripts'
CENSUS_REPORTING_ENABLED = False
RELEASE_CHECK_URL = None
ISOLATED_DEPLOYMENT = True
DEBUG = False
LOGIN_REQUIRED = True
CONF
NB=("$VENV/bin/netbox")

# --- schema: restore the committed dump, or migrate once and keep the dump ----------------------
if [[ -f $DUMP ]]; then
    say "restoring $DUMP"
    t0=$SECONDS
    PGPASSWORD=$DBPASS pg_restore -h 127.0.0.1 -p "$PGPORT" -U netbox -d netbox --no-owner "$DUMP"
    say "restored in $((SECONDS - t0)) s"
else
    say "no dump at $DUMP: netbox migrate (about 12 minutes)"
    t0=$SECONDS
    "${NB[@]}" migrate --no-input >"$DIR/migrate.log" 2>&1
    say "migrated in $((SECONDS - t0)) s; writing $DUMP"
    mkdir -p "$(dirname "$DUMP")"
    PGPASSWORD=$DBPASS pg_dump -h 127.0.0.1 -p "$PGPORT" -U netbox -Fc -f "$DUMP" netbox
fi

# --- superuser and v2 token in one Django start (each start costs 15-20 s) -------------------------
ADMIN_PASS=$(rand 24)
TOKEN=$("${NB[@]}" nbshell -c "
from users.models import User, Token
u, _ = User.objects.get_or_create(username='bom-admin', defaults={'is_superuser': True})
u.is_superuser = True; u.set_password('$ADMIN_PASS'); u.save()
t = Token(user=u, version=2, write_enabled=True, description='clusterbom live tests')
t.save()
print('TOKEN=nbt_' + t.key + '.' + t.token)
" 2>"$DIR/nbshell.log" | sed -n 's/^TOKEN=//p' | tail -1)
[[ -n $TOKEN ]] || { say "could not create the API token; see $DIR/nbshell.log"; exit 1; }

# --- the server ------------------------------------------------------------------------------------
RQ_PID=
if [[ $SERVER = gunicorn ]]; then
    GWORKERS=${BOM_NETBOX_GUNICORN_WORKERS:-$((2 * $(nproc) + 1))}
    # NetBox's contrib/gunicorn.py, on this run's port and worker count
    cat > "$DIR/gunicorn.py" <<GCONF
bind = '127.0.0.1:$WEBPORT'
workers = $GWORKERS
threads = 3
timeout = 120
max_requests = 5000
max_requests_jitter = 500
preload_app = True
pidfile = '$DIR/gunicorn.pid'
# gunicorn 23+ opens a control socket, by default one per user ($HOME/.gunicorn): this run's own
control_socket = '$DIR/gunicorn.ctl'
GCONF
    RQ_ARGS=()
    if [[ -n ${BOM_NETBOX_ACCOUNT:-} ]]; then
        export BOM_NETBOX_ACCOUNT PYTHONPATH=$REPO/benchmarks${PYTHONPATH:+:$PYTHONPATH}
        echo "from bench_netbox_hooks import pre_request, post_request  # noqa: F401" >> "$DIR/gunicorn.py"
        RQ_ARGS=(--worker-class bench_netbox_hooks.AccountingWorker)
    fi
    NETBOX_ROOT=$NETBOX_ROOT setsid "$VENV/bin/gunicorn" --config "$DIR/gunicorn.py" netbox.wsgi \
        >"$DIR/web.log" 2>&1 < /dev/null &
    WEB_PID=$!
    NETBOX_ROOT=$NETBOX_ROOT setsid "${NB[@]}" rqworker high default low "${RQ_ARGS[@]}" >"$DIR/rq.log" 2>&1 < /dev/null &
    RQ_PID=$!
else
    NETBOX_ROOT=$NETBOX_ROOT setsid "${NB[@]}" runserver "127.0.0.1:$WEBPORT" --noreload \
        >"$DIR/web.log" 2>&1 < /dev/null &
    WEB_PID=$!
fi
URL=http://127.0.0.1:$WEBPORT
cat > "$STATE" <<STATE
NETBOX_CHECKOUT=$REPO
NETBOX_URL=$URL
NETBOX_TOKEN=$TOKEN
NETBOX_USER=bom-admin
NETBOX_PASSWORD=$ADMIN_PASS
NETBOX_VERSION=$NETBOX_VERSION
NETBOX_VENV=$VENV
NETBOX_ROOT=$NETBOX_ROOT
PG_PID=$PG_PID
REDIS_PID=$REDIS_PID
WEB_PID=$WEB_PID
RQ_PID=$RQ_PID
NETBOX_SERVER=$SERVER
BOM_NETBOX_DIR=$DIR
STATE
chmod 600 "$STATE"
for _ in $(seq 180); do
    if curl -fsS -o "$DIR/status.json" -H "Authorization: Bearer $TOKEN" "$URL/api/status/" 2>/dev/null &&
        { [[ $SERVER = runserver ]] || grep -q '"rq-workers-running": *[1-9]' "$DIR/status.json"; }; then
        say "up at $URL ($SERVER) in ${SECONDS} s (state in $STATE)"
        echo "$STATE"
        exit 0
    fi
    kill -0 "$WEB_PID" 2>/dev/null || break
    sleep 1
done
say "NetBox did not answer; see $DIR/web.log"
exit 1
