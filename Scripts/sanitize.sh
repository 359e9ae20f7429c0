#!/usr/bin/env bash
# Runs the core test targets (the engine's suite and the reliability suite, with the helper
# processes they start) under ThreadSanitizer and AddressSanitizer, each in its own scratch
# folder so neither disturbs the normal .build.
#
#   Scripts/sanitize.sh            both sanitizers
#   Scripts/sanitize.sh thread     ThreadSanitizer only
#   Scripts/sanitize.sh address    AddressSanitizer only
#
# Environment: SANITIZE_FILTER (default: the two core test targets), SOAK_SECONDS (default
# 10 here: the soak's six processes run 5-15x slower under a sanitizer), CRASH_ROUNDS,
# FUZZ_SQL_CASES, FUZZ_CACHE_CASES (see the README's reliability table).
# Exit status: non-zero if any test failed or a sanitizer reported a problem (a sanitizer
# report in a helper process makes that process exit non-zero, which fails its test).
set -euo pipefail
cd "$(dirname "$0")/.."

which="${1:-all}"
filter="${SANITIZE_FILTER:-SQLiteDefaultsTests|SQLiteDefaultsReliabilityTests}"
# The fault suites (power loss, I/O errors) replay one serialized workload thousands of times
# through a test VFS: they test SQLite's and the library's I/O error paths, not threads or
# memory, and under ThreadSanitizer their slow tier alone took 450 s. They run unsanitized in
# the README's test command.
skip="${SANITIZE_SKIP:-FaultTests}"
export SOAK_SECONDS="${SOAK_SECONDS:-10}"
# The fuzzers' point under a sanitizer is memory and thread safety of the decoding paths, not
# coverage of inputs (the normal run has the full counts): a quarter of the cases here.
export FUZZ_SQL_CASES="${FUZZ_SQL_CASES:-30}"
export FUZZ_CACHE_CASES="${FUZZ_CACHE_CASES:-100}"
# The soak and the crash loop are in the slow tier; under the sanitizers they are the point.
export SQLITEDEFAULTS_SLOW_TESTS="${SQLITEDEFAULTS_SLOW_TESTS:-1}"
# These builds take no package trait (--disable-default-traits): the engine, its helpers and
# its two suites, with no macros (swift-syntax), no fleet (postgres-nio, BoringSSL), no console
# (Hummingbird) and no prefs. The modules behind traits compile to nothing.
traits=(--disable-default-traits)
# halt_on_error: the first report ends the process with a non-zero status, so no race
# slips by in a child process whose stderr nobody reads.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1}"
# Leak checking is off: the Swift runtime and Foundation keep process-lifetime allocations
# that LeakSanitizer reports in every program.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0 halt_on_error=1}"

run() {
    local sanitizer="$1" scratch="$2"
    local start built finished
    echo "== swift test --sanitize=$sanitizer (scratch $scratch, filter '$filter')"
    start=$(date +%s)
    # The library's locks become pthread mutexes, which ThreadSanitizer understands (see
    # Sources/SQLiteDefaults/Support/SanitizerMutex.swift).
    swift build --build-tests "${traits[@]}" --sanitize="$sanitizer" --scratch-path "$scratch" -Xswiftc -DSQLITEDEFAULTS_PTHREAD_MUTEX
    built=$(date +%s)
    swift test --skip-build "${traits[@]}" --sanitize="$sanitizer" --scratch-path "$scratch" --filter "$filter" --skip "$skip" -Xswiftc -DSQLITEDEFAULTS_PTHREAD_MUTEX
    finished=$(date +%s)
    echo "== $sanitizer: build $((built - start)) s, tests $((finished - built)) s"
}

case "$which" in
    thread) run thread .build-tsan ;;
    address) run address .build-asan ;;
    all) run thread .build-tsan; run address .build-asan ;;
    *) echo "usage: $0 [thread|address|all]" >&2; exit 2 ;;
esac
