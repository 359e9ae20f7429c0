#!/usr/bin/env bash
# CI's smoke run of the benchmarks: every package-benchmark target's benchmarks a few iterations
# (SQLITEDEFAULTS_BENCH_SMOKE=1), then the ratio table with tiny counts. Proves the suite builds
# and runs; never fails on timing.
#
#   bash Benchmarks/smoke.sh            build (if needed) and run
#   bash Benchmarks/smoke.sh --build    only build what it runs, and note where (CI builds it in
#                                       its background lane, then runs it in the foreground)
#   BENCH_SKIP_BUILD=1 bash Benchmarks/smoke.sh
#                                       run what --build made without running SwiftPM (each
#                                       `swift build` plans the whole graph again first)
#
# Built with the shipped binary's flags in its scratch folder (Scripts/release-flags.sh), so
# the dependencies Scripts/prefs-release.sh compiled are reused: `swift package benchmark` builds
# in a configuration of its own, which compiled everything a third time in release. (The
# library's own modules still compile once more when the folder switches from the root package
# to this one: SwiftPM rebuilds the migrations plugin's tool, and its generated source changes.)
# Each target's program is run directly: package-benchmark's runner, started without its
# plugin, runs every benchmark it registers and prints each one's results. The Observable target is left out, as the plugin's smoke left it out: building it
# builds swift-syntax in release for its macro, and its benchmarks are the store's `get` and `set`
# again, through `@ObservableDefaults` (`swift package benchmark --target Observable` runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/release-flags.sh
build=("${release_flags[@]}" --package-path Benchmarks --scratch-path "$release_scratch")
targets=(Reads Writes Notifications Scale Flags)
noted="$release_scratch/benchmarks-bin"
if [ "${BENCH_SKIP_BUILD:-0}" = 1 ]; then
    [ -f "$noted" ] || { echo "smoke: nothing built (bash Benchmarks/smoke.sh --build)" >&2; exit 1; }
    bin="$(cat "$noted")"
else
    for target in "${targets[@]}" Ratios; do
        swift build "${build[@]}" --product "$target"
    done
    bin="$(swift build "${build[@]}" --show-bin-path)"
    echo "$bin" >"$noted"
fi
[ "${1:-}" = --build ] && exit 0
export SQLITEDEFAULTS_BENCH_SMOKE=1
export SQLITEDEFAULTS_BENCH_WRITER="$bin/BenchWriter"
export SQLITEDEFAULTS_MIGRATIONS="$PWD/Migrations"
for target in "${targets[@]}"; do
    echo "== $target"
    "$bin/$target"
done
BENCHMARK_SHARED_RELEASE=1 BENCHMARK_BIN="$bin" bash Benchmarks/compare.sh --smoke
