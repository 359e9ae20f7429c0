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
scratch="${BENCHMARK_SCRATCH_PATH:-$here/.build}"
# release unless told (CI's smoke builds it in debug, in the root's own scratch folder: it proves
# the table builds and runs, and measures nothing).
configuration="${BENCHMARK_CONFIGURATION:-release}"

swift build --package-path "$here" --scratch-path "$scratch" -c "$configuration" --product Ratios >&2
bin="$(swift build --package-path "$here" --scratch-path "$scratch" -c "$configuration" --show-bin-path)"

# Count allocations: the malloc interposer (built with package-benchmark) must be preloaded.
interposer="$bin/libMallocInterposerSwift.so"
if [ -f "$interposer" ]; then
    export LD_PRELOAD="$interposer${LD_PRELOAD:+:$LD_PRELOAD}"
fi
export SQLITEDEFAULTS_BENCH_WRITER="$bin/BenchWriter"
export SQLITEDEFAULTS_MIGRATIONS="$here/../Migrations"
exec "$bin/Ratios" "$@"
