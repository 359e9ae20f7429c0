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
