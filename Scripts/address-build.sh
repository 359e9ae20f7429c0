# Sourced by Scripts/sanitize.sh and Scripts/fuzz.sh: the one AddressSanitizer build both use
# (scratch folder .build-asan), so CI compiles the world with ASan once, not twice.
#
# What it is: the Console trait only (no macros, fleet, prefs or Vapor to instrument), Swift and
# C code with AddressSanitizer, the coverage libFuzzer steers by (8-bit counters, PC table,
# comparisons: what -sanitize=fuzzer gives), libFuzzer's runtime without its main linked in
# (the fuzz programs call LLVMFuzzerRunDriver from their own main, FuzzDriver, built with
# -DFUZZING; every other executable keeps its main and never calls it), and the library's
# locks as pthread mutexes (-DSQLITEDEFAULTS_PTHREAD_MUTEX, see SanitizerMutex). The engine and
# reliability suites run on it under ASan exactly as before; the coverage counters cost them
# some speed and change nothing else.
#
# Defines: address_scratch, address_flags (for `swift build` and `swift test`).
toolchain="$(dirname "$(readlink -f "$(command -v swift)")")/.."
fuzzer_runtime="$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)"
[ -n "$fuzzer_runtime" ] || { echo "address-build: no libclang_rt.fuzzer_no_main in $toolchain" >&2; exit 1; }
address_scratch=.build-asan
address_flags=(--scratch-path "$address_scratch" --disable-default-traits --traits Console --sanitize=address
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
    -Xswiftc -DFUZZING -Xswiftc -DSQLITEDEFAULTS_PTHREAD_MUTEX
    -Xlinker "$fuzzer_runtime" -Xlinker -lstdc++)
