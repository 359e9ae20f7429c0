#!/usr/bin/env bash
# Runs the core test targets (the engine's suite and the reliability suite, with the helper
# processes they start) under ThreadSanitizer and AddressSanitizer, each in its own scratch
# folder so neither disturbs the normal .build (.build-tsan, and Scripts/address-build.sh's
# .build-asan; the fuzzers have an AddressSanitizer build of their own, Scripts/fuzz.sh).
#
#   Scripts/sanitize.sh                    both sanitizers, build and test
#   Scripts/sanitize.sh thread             ThreadSanitizer only
#   Scripts/sanitize.sh address            AddressSanitizer only
#   Scripts/sanitize.sh address build      only build (CI then runs the suites beside the fuzzers)
#   Scripts/sanitize.sh address test       only run the suites on what `build` made
#
# Environment: SANITIZE_FILTER (default: the two core test targets), SOAK_SECONDS (default
# 10 here: the soak's six processes run 5-15x slower under a sanitizer), CRASH_ROUNDS,
# FUZZ_SQL_CASES, FUZZ_CACHE_CASES (see the README's reliability table).
# Exit status: non-zero if any test failed or a sanitizer reported a problem (a sanitizer
# report in a helper process makes that process exit non-zero, which fails its test).
set -euo pipefail
cd "$(dirname "$0")/.."

which="${1:-all}"
phase="${2:-both}"
filter="${SANITIZE_FILTER:-SQLiteDefaultsTests|SQLiteDefaultsReliabilityTests}"
# The fault suites (power loss, I/O errors) replay one serialized workload thousands of times
# through a test VFS: they test SQLite's and the library's I/O error paths, not threads or
# memory, and under ThreadSanitizer their slow tier alone took 450 s. They run unsanitized in
# the README's test command.
#
# aBackupOfAnOlderSchemaRestoredUnderAnOpenStoreIsHeard is left out here, for a defect seen
# under the sanitizers in most CI runs up to 2026-11-29 and rarely elsewhere: the store missed
# the restore, every later look finding nothing new while a SELECT on its connection read the
# restored row. One cause is found and fixed (2026-12-06, ChangeLogRewindTests): a restore that
# comes before the monitor has looked past the store's own last commit leaves the log ending at
# the entry the store's position names, and the look took that for "nothing new". A slow
# (sanitized) monitor beside an unsanitized `sqlite3` widens exactly that window. The failure
# did not reproduce here on the old code either (30 runs under ThreadSanitizer, with and
# without three busy loops beside it), so the fix is not yet proved to be the whole of it under
# a sanitizer: the test stays out here until a CI run includes it (SANITIZE_SKIP=FaultTests).
skip="${SANITIZE_SKIP:-FaultTests|aBackupOfAnOlderSchemaRestoredUnderAnOpenStoreIsHeard}"
export SOAK_SECONDS="${SOAK_SECONDS:-10}"
# Two test bodies at a time (Tests/TestScheduling/TestExecutor.swift says why).
export SQLITEDEFAULTS_TEST_THREADS="${SQLITEDEFAULTS_TEST_THREADS:-2}"
# The fuzzers' point under a sanitizer is memory and thread safety of the decoding paths, not
# coverage of inputs (the normal run has the full counts): a quarter of the cases here.
export FUZZ_SQL_CASES="${FUZZ_SQL_CASES:-30}"
export FUZZ_CACHE_CASES="${FUZZ_CACHE_CASES:-100}"
# The soak and the crash loop are in the slow tier; under the sanitizers they are the point.
export SQLITEDEFAULTS_SLOW_TESTS="${SQLITEDEFAULTS_SLOW_TESTS:-1}"
# The ThreadSanitizer build takes no package trait (--disable-default-traits): the engine, its
# helpers and its two suites, with no macros (swift-syntax), no fleet (postgres-nio, BoringSSL),
# no console (Hummingbird) and no prefs. The modules behind traits compile to nothing. The
# AddressSanitizer build is Scripts/address-build.sh's, with no trait either.
thread_flags=(--scratch-path .build-tsan --disable-default-traits --sanitize=thread -Xswiftc -DSQLITEDEFAULTS_PTHREAD_MUTEX)
source Scripts/address-build.sh
# halt_on_error: the first report ends the process with a non-zero status, so no race
# slips by in a child process whose stderr nobody reads.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1}"
# Leak checking is off: the Swift runtime and Foundation keep process-lifetime allocations
# that LeakSanitizer reports in every program.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0 halt_on_error=1}"

run() {
    local sanitizer="$1"; shift
    local flags=("$@") start built finished
    echo "== the test bundle built with --sanitize=$sanitizer (${flags[1]}, filter '$filter')"
    start=$(date +%s)
    # The library's locks become pthread mutexes, which ThreadSanitizer understands (see
    # Sources/SQLiteDefaults/Support/SanitizerMutex.swift).
    # The test bundle's product, not `--build-tests`: that builds every target of the package
    # as well (prefs, the benchmarks, the fuzzers, the fleet simulator), none of which the suites
    # run. CI's lane builds it from a manifest that keeps only the suites' two test targets
    # (Scripts/keep-test-targets.py), half the compiles of the whole bundle (251 of 550).
    [ "$phase" = test ] || swift build --product SQLiteDefaultsPackageTests "${flags[@]}"
    built=$(date +%s)
    # The bundle directly (Scripts/test-bundle.sh): `swift test --skip-build` plans the build
    # again first, seconds of a core for nothing.
    [ "$phase" = build ] || bash Scripts/test-bundle.sh "$(swift build "${flags[@]}" --show-bin-path)" --filter "$filter" --skip "$skip"
    finished=$(date +%s)
    echo "== $sanitizer: build $((built - start)) s, tests $((finished - built)) s"
}

case "$phase" in build|test|both) ;; *) echo "usage: $0 [thread|address|all] [build|test|both]" >&2; exit 2 ;; esac
case "$which" in
    thread) run thread "${thread_flags[@]}" ;;
    address) run address "${address_flags[@]}" ;;
    all) run thread "${thread_flags[@]}"; run address "${address_flags[@]}" ;;
    *) echo "usage: $0 [thread|address|all] [build|test|both]" >&2; exit 2 ;;
esac
