#!/usr/bin/env bash
# Prints one table of ratios: SQLiteDefaults against raw SQLite, a Mutex-guarded Dictionary and
# Foundation's UserDefaults, measured side by side (interleaved rounds) in one run.
#
#   bash Benchmarks/compare.sh            # full run, a few minutes (1,000,000-key table, 10 s idle)
#   bash Benchmarks/compare.sh --smoke    # tiny counts, seconds: proves it runs (CI); never fails on timing
#   bash Benchmarks/compare.sh --only get,set
#
# Run it on a quiet machine: ratios survive noise better than absolute times, not a busy CPU.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build=(-c release --package-path "$here" --scratch-path "${BENCHMARK_SCRATCH_PATH:-$here/.build}")
# BENCHMARK_SHARED_RELEASE=1 (Benchmarks/smoke.sh, CI): built with the shipped binary's flags in
# its scratch folder, whose dependencies Scripts/prefs-release.sh already compiled.
if [ "${BENCHMARK_SHARED_RELEASE:-0}" = 1 ]; then
    source "$here/../Scripts/release-flags.sh"
    build=("${release_flags[@]}" --package-path "$here" --scratch-path "$here/../$release_scratch")
fi

# BENCHMARK_BIN=DIR (Benchmarks/smoke.sh): Ratios is already built there; no SwiftPM run.
if [ -n "${BENCHMARK_BIN:-}" ]; then
    bin="$BENCHMARK_BIN"
else
    swift build "${build[@]}" --product Ratios >&2
    bin="$(swift build "${build[@]}" --show-bin-path)"
fi

# Count allocations: the malloc interposer (built with package-benchmark) must be preloaded.
interposer="$bin/libMallocInterposerSwift.so"
if [ -f "$interposer" ]; then
    export LD_PRELOAD="$interposer${LD_PRELOAD:+:$LD_PRELOAD}"
fi
export SQLITEDEFAULTS_BENCH_WRITER="$bin/BenchWriter"
export SQLITEDEFAULTS_MIGRATIONS="$here/../Migrations"
exec "$bin/Ratios" "$@"
