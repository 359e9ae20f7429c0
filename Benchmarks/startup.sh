#!/usr/bin/env bash
# Whole-process start-up, paired: each round runs every command, in alternating order, so load
# on the machine hits them alike. Prints the medians and their ratio to the sqlite3 shell.
#
#   - `prefs read KEY` from the shipped binary (Scripts/prefs-release.sh: static, stripped, no
#     PIE) against `sqlite3 FILE "select value …"` on the same row: the contract is 1.5x at most.
#   - A minimal static program that embeds the store (DefaultsStore(path:) + one read,
#     Benchmarks/Sources/CoreStartup) against one that calls sqlite3_open + one SELECT
#     (Benchmarks/Sources/RawStartup): what a user's own CLI pays for the library.
#   - The floors that explain them: an empty Swift program and one that only imports
#     Foundation, each linked dynamically and statically.
#
#   bash Benchmarks/startup.sh [ROUNDS]      (default 200; --smoke: 5 rounds)
#   bash Benchmarks/startup.sh --build       only build what it runs, the floors included, and
#                                            note where (CI builds it in the background, then
#                                            measures in the foreground)
#   STARTUP_SKIP_BUILD=1 bash Benchmarks/startup.sh --smoke
#                                            measure what --build made, without running SwiftPM:
#                                            the release folder is shared by two root packages
#                                            (this repository for prefs, Benchmarks/ for the
#                                            start-up programs), and each switch of root compiles
#                                            the library's modules again (100 s of the smoke's
#                                            183 s, 2026-12-02)
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-200}"
[ "$rounds" = "--smoke" ] && rounds=5
build_only=0
[ "$rounds" = "--build" ] && build_only=1
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

source Scripts/release-flags.sh
# What --build made, and where: the shipped prefs, the start-up programs' folder, the floors.
built="$release_scratch/startup"
if [ "${STARTUP_SKIP_BUILD:-0}" = 1 ]; then
    [ -f "$built/paths" ] || { echo "startup: nothing built (bash Benchmarks/startup.sh --build)" >&2; exit 1; }
    source "$built/paths"
else
    prefs="$(bash Scripts/prefs-release.sh 2>/dev/null | tail -1)"
    [ -x "$prefs" ] || { echo "startup: Scripts/prefs-release.sh built no binary" >&2; exit 1; }
    static=("${release_flags[@]}" --package-path Benchmarks --scratch-path "$release_scratch")
    swift build "${static[@]}" --product CoreStartup >/dev/null
    swift build "${static[@]}" --product RawStartup >/dev/null
    bench_bin="$(swift build "${static[@]}" --show-bin-path)"

    # The floors: the smallest Swift processes with and without Foundation.
    floors="$(mkdir -p "$built" && cd "$built" && pwd)"
    printf 'print("x")\n' >"$work/empty.swift"
    printf 'import Foundation\nprint(ProcessInfo.processInfo.arguments.count)\n' >"$work/foundation.swift"
    swiftc -O "$work/empty.swift" -o "$floors/empty-dynamic" 2>/dev/null
    swiftc -O -static-stdlib "$work/empty.swift" -o "$floors/empty-static" 2>/dev/null
    swiftc -O "$work/foundation.swift" -o "$floors/foundation-dynamic" 2>/dev/null
    swiftc -O -static-stdlib "$work/foundation.swift" -o "$floors/foundation-static" 2>/dev/null
    printf 'prefs=%q\nbench_bin=%q\nfloors=%q\n' "$prefs" "$bench_bin" "$floors" >"$built/paths"
fi
[ "$build_only" = 1 ] && exit 0

db="$work/startup.sqlite"
"$prefs" --db "$db" write timeout --type int 30 >/dev/null

python3 - "$rounds" "$prefs" "$bench_bin" "$db" "$floors" <<'PY'
import os, statistics, subprocess, sys, time
rounds, prefs, bench_bin, db, floors = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
commands = {
    "sqlite3 FILE \"select value …\"": ["sqlite3", db, "select value from defaults where key = 'timeout'"],
    "prefs read (Scripts/prefs-release.sh)": [prefs, "--db", db, "read", "timeout"],
    "sqlite3_open + SELECT (static)": [bench_bin + "/RawStartup", db, "timeout"],
    "DefaultsStore(path:) + get (static)": [bench_bin + "/CoreStartup", db, "timeout"],
    "empty Swift program (dynamic)": [floors + "/empty-dynamic"],
    "empty Swift program (static)": [floors + "/empty-static"],
    "import Foundation (dynamic)": [floors + "/foundation-dynamic"],
    "import Foundation (static)": [floors + "/foundation-static"],
}
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
    print(f"  {name:38} {m * 1000:7.2f} ms  {m / base:5.2f}x sqlite3")
raw, core = statistics.median(times["sqlite3_open + SELECT (static)"]), statistics.median(times["DefaultsStore(path:) + get (static)"])
print(f"  embedded store / its raw floor: {core / raw:.2f}x")
PY
