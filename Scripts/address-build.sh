# Sourced by Scripts/sanitize.sh and Scripts/fuzz.sh: the two AddressSanitizer builds.
#
# The suites' (scratch .build-asan, `address_flags`): no package trait, like the
# ThreadSanitizer build: the engine, its helpers and its test targets with AddressSanitizer and
# the library's locks as pthread mutexes (-DSQLITEDEFAULTS_PTHREAD_MUTEX, see SanitizerMutex).
# No coverage instrumentation: the suites do not need it, and it slowed them.
#
# The fuzzers' (scratch .build-fuzz/build, `fuzz_flags`): the Console trait (FuzzConsoleRequest
# drives the console's routes), only the three fuzz programs built (`--product`, never
# `--build-tests`: the console's test target would bring HummingbirdTesting, AsyncHTTPClient
# and BoringSSL into the instrumented build), Swift and C code with AddressSanitizer, the
# coverage libFuzzer steers by (8-bit counters, PC table, comparisons: what -sanitize=fuzzer
# gives), and libFuzzer's runtime without its main linked in (the fuzz programs call
# LLVMFuzzerRunDriver from their own main, FuzzDriver, built with -DFUZZING).
#
# Until 2026-11-28 the two were one build with the Console trait and coverage everywhere
# (396 s on two cores); split, each compiles only what its stage runs.
#
# Defines: address_scratch, address_flags (for `swift build --build-tests` and `swift test`),
# fuzz_scratch, fuzz_flags (for `swift build --product FuzzX`).
toolchain="$(dirname "$(readlink -f "$(command -v swift)")")/.."
address_scratch=.build-asan
address_flags=(--scratch-path "$address_scratch" --disable-default-traits --sanitize=address
    -Xswiftc -DSQLITEDEFAULTS_PTHREAD_MUTEX)
fuzzer_runtime="$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)"
[ -n "$fuzzer_runtime" ] || { echo "address-build: no libclang_rt.fuzzer_no_main in $toolchain" >&2; exit 1; }
fuzz_scratch=.build-fuzz/build
fuzz_flags=(--scratch-path "$fuzz_scratch" --disable-default-traits --traits Console --sanitize=address
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
    -Xswiftc -DFUZZING -Xswiftc -DSQLITEDEFAULTS_PTHREAD_MUTEX
    -Xlinker "$fuzzer_runtime" -Xlinker -lstdc++)
