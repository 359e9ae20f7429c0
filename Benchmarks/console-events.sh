#!/usr/bin/env bash
# The console's event stream: from a commit by another process to the change on the stream.
# Starts `prefs serve --port 0` on a fresh file, reads /api/events, and from this script's own
# process (Python's sqlite3 module: another process, another connection, plain SQL) commits one
# change at a time, timing each until its event arrives. Prints the median, p90 and max.
#
#   bash Benchmarks/console-events.sh [CHANGES]     (default 200; --smoke: 10)
set -euo pipefail
cd "$(dirname "$0")/.."

changes="${1:-200}"
[ "$changes" = "--smoke" ] && changes=10
work="$(mktemp -d)"
swift build --enable-all-traits --product prefs >/dev/null
prefs="$(swift build --enable-all-traits --show-bin-path)/prefs"
"$prefs" --db "$work/defaults.sqlite" write warmup 0 >/dev/null
"$prefs" --db "$work/defaults.sqlite" serve --port 0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 300); do grep -q 'http://' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
port="$(grep -o 'http://127.0.0.1:[0-9]*/' "$work/serve.out" | head -1 | sed 's/.*:\([0-9]*\)\//\1/')"

python3 - "$work/defaults.sqlite" "$port" "$changes" <<'PY'
import http.client, json, socket, sqlite3, statistics, sys, time
path, port, changes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
connection.request("GET", "/api/events")
response = connection.getresponse()
assert response.status == 200, response.status
def next_event():
    while True:
        line = response.fp.readline().decode()
        if line.startswith("data: "):
            return json.loads(line[6:])
database = sqlite3.connect(path, isolation_level=None)
database.execute("PRAGMA busy_timeout = 5000")
latencies = []
for number in range(1, changes + 1):
    start = time.perf_counter()
    database.execute("INSERT INTO defaults(key, value) VALUES ('bench', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (number,))
    while True:
        event = next_event()
        if event["key"] == "bench" and event["value"] == number:
            break
    latencies.append((time.perf_counter() - start) * 1000)
latencies.sort()
print(f"commit by another process -> event on the stream, {changes} changes: "
      f"median {statistics.median(latencies):.2f} ms, p90 {latencies[int(len(latencies) * 0.9) - 1]:.2f} ms, max {latencies[-1]:.2f} ms")
PY
