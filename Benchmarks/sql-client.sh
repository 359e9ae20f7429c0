#!/usr/bin/env bash
# What another SQL client pays for the schema's triggers: the `sqlite3` shell upserting into a
# store's `defaults` table, against the same shell on a bare table (`key TEXT UNIQUE, value`,
# WAL), in the same run.
#
#   bash Benchmarks/sql-client.sh            # 2,000 upserts, best of 3 rounds; callgrind when installed
#   bash Benchmarks/sql-client.sh --smoke    # 200 upserts, one round, no callgrind; never fails on timing
#   PREFS=/path/to/prefs bash Benchmarks/sql-client.sh
#
# Each upsert is its own statement and its own transaction (`INSERT … ON CONFLICT(key) DO UPDATE`,
# 50 keys in turn), so each is prepared once: the time is mostly what SQLite spends compiling the
# triggers the statement fires (see the Performance article, "What a SQL client pays"). The files
# live in /dev/shm when it exists, so that fsync does not hide that cost. With valgrind, one upsert
# is also counted in instructions: the shell running it, less the shell running a statement that
# writes nothing on the same file (the difference is preparing and running the upsert).
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1
prefs=${PREFS:-$(swift build --show-bin-path)/prefs}
[ -x "$prefs" ] || { echo "sql-client.sh: $prefs not found; run swift build first (or set PREFS)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "sql-client.sh: the sqlite3 shell is needed" >&2; exit 1; }
base=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
work=$(mktemp -d "$base/sql-client.XXXXXX")
trap 'rm -rf "$work"' EXIT

count=2000 rounds=3
[ $smoke = 1 ] && count=200 rounds=1
"$prefs" --db "$work/store.sqlite" write sql-client.sh 1 >/dev/null
sqlite3 "$work/bare.sqlite" "PRAGMA journal_mode = WAL; CREATE TABLE defaults (key TEXT NOT NULL UNIQUE, value);" >/dev/null
for i in $(seq 1 "$count"); do
    echo "INSERT INTO defaults(key, value) VALUES ('k$((i % 50))', $i) ON CONFLICT(key) DO UPDATE SET value = excluded.value;"
done > "$work/upserts.sql"

# best_of FILE: the shortest of $rounds runs of the upserts on a fresh copy of FILE, in seconds.
best_of() {
    local best=""
    for _ in $(seq 1 "$rounds"); do
        cp "$1" "$work/run.sqlite" && rm -f "$work/run.sqlite-wal" "$work/run.sqlite-shm"
        local start end
        start=$(date +%s.%N)
        sqlite3 "$work/run.sqlite" < "$work/upserts.sql"
        end=$(date +%s.%N)
        best=$(echo "$start $end ${best:-}" | awk '{ t = $2 - $1; if ($3 == "" || t < $3) print t; else print $3 }')
    done
    echo "$best"
}
store=$(best_of "$work/store.sqlite")
bare=$(best_of "$work/bare.sqlite")
echo "$count upserts, one sqlite3 shell, each its own transaction ($(sqlite3 --version | cut -d' ' -f1), files in $base):"
target="(target: at most 10×)"
[ $smoke = 1 ] && target="(a smoke run: too few upserts to measure; start-up dominates the bare table's time)"
awk -v s="$store" -v b="$bare" -v t="$target" 'BEGIN { printf "  store %.3f s, bare table %.3f s: %.1f×  %s\n", s, b, s / b, t }'

if [ $smoke = 0 ] && command -v valgrind >/dev/null; then
    echo "INSERT INTO defaults(key, value) VALUES ('k1', 'v') ON CONFLICT(key) DO UPDATE SET value = excluded.value;" > "$work/one.sql"
    echo "SELECT 1 FROM defaults WHERE 0;" > "$work/none.sql"
    # instructions FILE SQL: what the shell executes running SQL on a fresh copy of FILE.
    instructions() {
        cp "$1" "$work/count.sqlite" && rm -f "$work/count.sqlite-wal" "$work/count.sqlite-shm"
        valgrind --tool=callgrind --callgrind-out-file=/dev/null sqlite3 "$work/count.sqlite" < "$2" 2>&1 >/dev/null \
            | sed -n 's/.*Collected : //p'
    }
    for file in store bare; do
        one=$(instructions "$work/$file.sqlite" "$work/one.sql")
        none=$(instructions "$work/$file.sqlite" "$work/none.sql")
        awk -v f="$file" -v n=$((one - none)) 'BEGIN { printf "  one upsert, %s: %.2f M instructions%s\n", f, n / 1e6, f == "store" ? "  (target: at most 3 M)" : "" }'
    done
fi
