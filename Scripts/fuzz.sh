#!/usr/bin/env bash
# Builds the libFuzzer targets (Tests/Fuzz) with -sanitize=fuzzer,address in their own scratch
# folder and runs each for a bounded time, starting from its corpus in the repository:
#
#   FuzzImportReader     prefs import's JSON reader
#   FuzzRoundTrip        what export writes, import restores exactly
#   FuzzConsoleRequest   the console's request handling (route, key, query, headers, body)
#
#   Scripts/fuzz.sh                      every target, FUZZ_SECONDS (default 60) each
#   Scripts/fuzz.sh FuzzRoundTrip        one target
#
# Exit status non-zero when a target crashed, leaked, hung or broke its promise: libFuzzer
# writes the input to .build-fuzz/findings/TARGET/ (crash-…, leak-…, timeout-…), and the
# summary below names it. To keep one as a regression test, copy it to
# Tests/Fuzz/Regressions/TARGET/ (FuzzCorpusTests replays it); to replay it in a normal build:
# `swift run FuzzRoundTrip PATH`.
#
# New inputs the fuzzer finds go to a scratch copy of the corpus, never into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
scratch=.build-fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzImportReader FuzzRoundTrip FuzzConsoleRequest)

# libFuzzer's runtime without its main (the programs call LLVMFuzzerRunDriver from their own
# main, FuzzDriver): -sanitize=fuzzer would link compiler-rt's main into every executable the
# build links, the migration embedder (a build tool) included.
toolchain="$(dirname "$(readlink -f "$(command -v swift)")")/.."
runtime="$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)"
[ -n "$runtime" ] || { echo "fuzz: no libclang_rt.fuzzer_no_main in $toolchain"; exit 1; }
# The console's trait only: no macros, fleet, prefs or Vapor to compile with instrumentation.
# The coverage -sanitize=fuzzer gives (8-bit counters, PC table, comparisons), with ASan.
# FUZZING: the programs hand main to libFuzzer.
flags=(--scratch-path "$scratch" --disable-default-traits --traits Console
       -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
       -Xswiftc -DFUZZING -Xlinker "$runtime" -Xlinker -lstdc++)
bin="$(swift build "${flags[@]}" --show-bin-path)"
start=$(date +%s)
mkdir -p "$scratch"
for target in "${targets[@]}"; do
    # The linker warns about every ASan helper it cannot export; the log keeps them.
    if ! swift build "${flags[@]}" --product "$target" > "$scratch/build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$scratch/build.log" | tail -40
        exit 1
    fi
done
echo "== fuzz: built in $(( $(date +%s) - start )) s"

# LeakSanitizer runs after any input that allocated more than it freed; Tests/Fuzz/lsan.supp
# says what it cannot see (Swift's side tables) and is the only suppression. Swift's own crash
# backtracer is off: libFuzzer and ASan report the crash, and the backtracer's reads of other
# threads' stacks trip ASan.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/Tests/Fuzz/lsan.supp:print_suppressions=0}"
export SWIFT_BACKTRACE=enable=no
status=0
for target in "${targets[@]}"; do
    name="${target#Fuzz}"
    corpus="$scratch/corpus/$name"
    findings="$scratch/findings/$name"
    rm -rf "$corpus" "$findings"
    mkdir -p "$corpus" "$findings"
    cp Tests/Fuzz/Corpus/"$name"/* "$corpus"/
    [ -d Tests/Fuzz/Regressions/"$name" ] && cp Tests/Fuzz/Regressions/"$name"/* "$corpus"/
    seeds=$(ls "$corpus" | wc -l)
    echo "== fuzz: $target for $seconds s from $seeds inputs"
    # -timeout: one input taking 30 s is a hang. -rss_limit_mb: a runaway allocation.
    if "$bin/$target" "$corpus" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
        -artifact_prefix="$findings/" -print_final_stats=1 > "$scratch/$name.log" 2>&1; then
        runs=$(grep -E '^stat::number_of_executed_units' "$scratch/$name.log" | awk '{print $2}')
        echo "== fuzz: $target passed: ${runs:-?} inputs run, corpus $seeds → $(ls "$corpus" | wc -l)"
    else
        status=1
        echo "== fuzz: $target FAILED; its findings: $(ls "$findings" | tr '\n' ' ')"
        grep -v '^#' "$scratch/$name.log" | tail -40
    fi
done
exit $status
