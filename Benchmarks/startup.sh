#!/usr/bin/env bash
# `prefs read KEY` as a whole process against the sqlite3 shell reading the same row, paired:
# each round runs both, in alternating order, so load on the machine hits both alike. Prints
# the medians, their ratio, and the floors that explain them (an empty Swift program, one that
# only imports Foundation, each linked dynamically and statically).
#
#   bash Benchmarks/startup.sh [ROUNDS]      (default 200; --smoke: 5 rounds, for CI)
#
# prefs is built in release mode with the Swift runtime and Foundation linked statically
# (`--static-swift-stdlib`) into a position-dependent executable (`-Xlinker -no-pie`), as the
# README's install line builds it: loading libFoundation and ICU's data dynamically costs about
# 4 ms a run, and relocating a 140 MB position-independent binary at every start 1.5 ms more.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-200}"
[ "$rounds" = "--smoke" ] && rounds=5
scratch=".build-release-static"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

swift build -c release --static-swift-stdlib -Xlinker -no-pie --product prefs --scratch-path "$scratch" >/dev/null
prefs="$(swift build -c release --static-swift-stdlib -Xlinker -no-pie --scratch-path "$scratch" --show-bin-path)/prefs"
dynamic="$(swift build -c release --show-bin-path 2>/dev/null)/prefs"

# The floors: the smallest Swift processes with and without Foundation.
printf 'print("x")\n' >"$work/empty.swift"
printf 'import Foundation\nprint(ProcessInfo.processInfo.arguments.count)\n' >"$work/foundation.swift"
swiftc -O "$work/empty.swift" -o "$work/empty-dynamic" 2>/dev/null
swiftc -O -static-stdlib "$work/empty.swift" -o "$work/empty-static" 2>/dev/null
swiftc -O "$work/foundation.swift" -o "$work/foundation-dynamic" 2>/dev/null
swiftc -O -static-stdlib "$work/foundation.swift" -o "$work/foundation-static" 2>/dev/null

db="$work/startup.sqlite"
"$prefs" --db "$db" write timeout --type int 30 >/dev/null

python3 - "$rounds" "$prefs" "$dynamic" "$db" "$work" <<'PY'
import os, statistics, subprocess, sys, time
rounds, prefs, dynamic, db, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
commands = {
    "sqlite3 FILE \"select value …\"": ["sqlite3", db, "select value from defaults where key = 'timeout'"],
    "prefs read (release, static, no PIE)": [prefs, "--db", db, "read", "timeout"],
    "empty Swift program (dynamic)": [work + "/empty-dynamic"],
    "empty Swift program (static)": [work + "/empty-static"],
    "import Foundation (dynamic)": [work + "/foundation-dynamic"],
    "import Foundation (static)": [work + "/foundation-static"],
}
if os.path.exists(dynamic):
    commands["prefs read (release, dynamic)"] = [dynamic, "--db", db, "read", "timeout"]
times = {name: [] for name in commands}
names = list(commands)
for r in range(rounds):
    order = names if r % 2 == 0 else list(reversed(names))
    for name in order:
        start = time.perf_counter()
        subprocess.run(commands[name], stdout=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - start)
base = statistics.median(times[names[0]])
print(f"whole-process start-up, median of {rounds} paired rounds (load {os.getloadavg()[0]:.2f})")
for name in names:
    m = statistics.median(times[name])
    print(f"  {name:34} {m * 1000:7.2f} ms  {m / base:5.2f}x sqlite3")
PY
