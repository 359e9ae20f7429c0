#!/usr/bin/env bash
# The fleet benchmarks (SQLiteDefaultsPostgres): a throwaway PostgreSQL server on loopback,
# then FleetRatios, which runs every "machine" (a store on its own file, its own PostgresClient
# and DefaultsPostgresSync) in one process and prints one table.
#
#   bash Benchmarks/fleet.sh            # full run, about a minute after the build
#   bash Benchmarks/fleet.sh --smoke    # tiny counts: proves it runs; never fails on timing
#
# Needs the PostgreSQL server programs (Debian: apt-get install postgresql); the newest of
# /usr/lib/postgresql/*/bin is used, else initdb on $PATH. PostgreSQL refuses to run as root:
# as root the server runs as the postgres user (or nobody) through runuser.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
scratch="${BENCHMARK_SCRATCH_PATH:-$here/.build}"

pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
    if command -v initdb >/dev/null; then
        pgbin="$(dirname "$(command -v initdb)")"
    else
        echo "fleet.sh: no PostgreSQL server programs (initdb, pg_ctl); apt-get install postgresql" >&2
        exit 1
    fi
fi

# Build first: a failed build leaves no server behind.
swift build --package-path "$here" --scratch-path "$scratch" -c release --product FleetRatios >&2
bin="$(swift build --package-path "$here" --scratch-path "$scratch" -c release --show-bin-path)"

# Short: the socket path must fit in 107 bytes.
dir="$(mktemp -d /tmp/fleetpg.XXXXXX)"
as_server=()
if [ "$(id -u)" = 0 ]; then
    account=postgres
    id -u postgres >/dev/null 2>&1 || account=nobody
    chown "$account" "$dir"
    chmod 700 "$dir"
    as_server=(runuser -u "$account" --)
fi

stop_server() {
    if [ -f "$dir/data/postmaster.pid" ]; then
        "${as_server[@]}" "$pgbin/pg_ctl" stop -D "$dir/data" -m fast -w >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"

echo "fleet.sh: PostgreSQL from $pgbin on 127.0.0.1:$port (in $dir)" >&2
if ! "${as_server[@]}" "$pgbin/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C \
        >"$dir/initdb.log" 2>&1 </dev/null; then
    cat "$dir/initdb.log" >&2
    exit 1
fi
# pg_ctl's output goes to files: a postmaster that inherits a pipe keeps it open forever.
if ! "${as_server[@]}" "$pgbin/pg_ctl" start -w -t 60 -D "$dir/data" -l "$dir/server.log" \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" \
        >"$dir/pg_ctl.log" 2>&1 </dev/null; then
    cat "$dir/pg_ctl.log" "$dir/server.log" >&2 || true
    exit 1
fi

export FLEET_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
status=0
"$bin/FleetRatios" "$@" || status=$?
if [ "$status" != 0 ] && [ "$status" != 2 ] && [ -f "$dir/server.log" ]; then
    echo "fleet.sh: FleetRatios exited with $status; the server's log ends with:" >&2
    tail -n 20 "$dir/server.log" >&2 || true
fi
exit "$status"
