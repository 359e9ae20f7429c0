# Sourced, not run: the flags of every release build that CI and the scripts make, one list, so
# that the shipped `prefs` (Scripts/prefs-release.sh), the start-up programs
# (Benchmarks/startup.sh) and the benchmarks' smoke (Benchmarks/smoke.sh) share one scratch
# folder and compile their dependencies once: SwiftPM reuses an object only when its command
# line is the same, and the benchmark package names every trait of the root. (The library's own
# modules still compile again when the folder switches root package: SwiftPM 6.3 writes their
# -DTrait flags in another order for a root's `--enable-all-traits` than for a dependent's trait
# list; CI therefore builds all three from the benchmark package, PREFS_RELEASE_FROM.)
#
# What each flag is for: Scripts/prefs-release.sh's header.
# shellcheck disable=SC2034  # used by the scripts that source this file
release_flags=(-c release --static-swift-stdlib -Xlinker -no-pie -Xlinker --no-export-dynamic
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
    -Xswiftc -gnone)
# The scratch folder they share, relative to the repository's root.
release_scratch=".build-release"
# libstdc++ linked in, not loaded: the static Swift runtime and Foundation need it, and the
# toolchain links it with a plain `-lstdc++`, which finds the shared library first. Loading it cost
# every `prefs` run about two million instructions of symbol binding (the loader resolving
# libstdc++.so.6's own relocations): `prefs read` 7.65 M instructions loading it, 5.80 M with it
# linked in, the sqlite3 shell 5.20 M (callgrind, 2026-12-06); 1.59-2.10x the shell's time
# before, 1.34-1.44x after (Benchmarks/startup.sh). A folder holding only the archive, searched
# before the compiler's own (`-L` on the Swift driver reaches the linker ahead of them), makes the
# same `-lstdc++` take the archive.
# Where no archive is found (a toolchain without libstdc++'s static library), the binary loads it.
release_libstdcxx="$(clang -print-file-name=libstdc++.a 2>/dev/null || true)"
if [ -f "$release_libstdcxx" ]; then
    release_libstdcxx_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/$release_scratch/static-libstdc++"
    mkdir -p "$release_libstdcxx_dir"
    ln -sfn "$release_libstdcxx" "$release_libstdcxx_dir/libstdc++.a"
    release_flags+=(-Xswiftc "-L$release_libstdcxx_dir")
fi
