#!/usr/bin/env bash
# Builds `prefs` as a tool you can ship: one static, stripped binary and its man page.
#
#   bash Scripts/prefs-release.sh [OUTPUT_DIR]        (default .build-release/dist)
#
#   PREFS_RELEASE_FROM=Benchmarks bash Scripts/prefs-release.sh   (the same binary, built with
#                                        the benchmark package as root; CI, see below)
#
# Leaves OUTPUT_DIR/bin/prefs and OUTPUT_DIR/share/man/man1/prefs.1 (install both with
# `cp -R OUTPUT_DIR/. /usr/local/`), and prints the binary's absolute path as its last line.
#
# What the binary holds and needs:
# - The Swift runtime and Foundation are linked in (`--static-swift-stdlib`), so it runs on a
#   Linux machine without Swift. It is position-dependent (`-no-pie`): relocating a binary this
#   size at every start cost 1.5 ms of each run. It exports no symbols (`--no-export-dynamic`
#   undoes the toolchain's `-export-dynamic` for static programs): 40,000 exported symbols made
#   the runtime's one `dladdr` at start-up and every symbol the loader binds slower (2.4 million
#   instructions of a 30 million `prefs read`).
# - Generic types are instantiated through their metadata accessors, not by mangled name
#   (`-disable-concrete-type-metadata-mangled-name-accessors`): by name, the runtime checks
#   each generic requirement (a dictionary's `Key: Hashable`) by scanning every one of the
#   binary's ~9,300 conformance records, touching each record's type, so a few dictionaries
#   cost `prefs read` half a million instructions each and a few hundred page faults. The
#   binary is a little larger; nothing else changes.
# - SQLite is the system's shared library (libsqlite3.so.0, 3.34.1 or newer), as for the
#   library itself: the tool then reads and writes with the SQLite the distribution patches, the
#   one `sqlite3` and every other client of the file use. Every Linux that can run the tool has
#   it (`apt-get install libsqlite3-0`, `dnf install sqlite-libs`).
# - glibc (2.31 or newer, as the toolchain's static runtime requires) and libgcc_s. libstdc++,
#   which the runtime and Foundation need, is linked in (Scripts/release-flags.sh says how).
#
# What its 74 MB (stripped, 2026-12-06; 75 MB on 2026-11-28) are: 34 MB are ICU's data (icudt, in
# .rodata), linked because the full `Foundation` module (FoundationInternationalization) is
# imported by this package's modules and by prefs's dependencies (postgres-nio, Hummingbird,
# swift-crypto, NIOFoundationCompat); 30 MB are machine code (.text), about half of it Foundation
# and ICU's code, the rest NIO, BoringSSL (2 MB), postgres-nio, Hummingbird, swift-crypto,
# AsyncAlgorithms and the library (0.6 MB); 6 MB unwind tables. `prefs` needs none of ICU's data:
# no command formats for a locale (dates are ISO 8601 from PrefsFormats, numbers Swift's own
# text). Dropping it means every module in prefs's graph importing FoundationEssentials only,
# its dependencies included; until then the data costs disk and page-cache, not start-up work
# (`prefs read`: 5.80 M instructions under callgrind against the sqlite3 shell's 5.20 M, 1.12x,
# 2026-12-06; 7.65 M while libstdc++ was loaded).
#
# The man page comes from the same help text as `prefs --help`: swift-argument-parser's
# generate-manual tool reads the binary's `--experimental-dump-help`.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
source Scripts/release-flags.sh
scratch="$release_scratch"
out="${1:-$scratch/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# Every trait: prefs is shipped with its commands, `serve` (Console), `sync`/`relay` (Fleet) and
# `flags` (Flags); the defaults would leave the integrations out. The traits prefs does not use
# (Observable, Vapor, ...) build nothing more for `--product prefs`, and with all of them the
# library compiles exactly as for Benchmarks/startup.sh's static programs, which share this
# scratch folder.
#
# No debug information (`-gnone`): the binary is stripped below, so it would be thrown away;
# leaving it out took the build from 500 s to 459 s on two cores (2026-11-28).
flags=("${release_flags[@]}" --enable-all-traits --scratch-path "$scratch")
# PREFS_RELEASE_FROM=Benchmarks builds the same product with the benchmark package as the root
# package (it names every trait of this one, so the binary is the same): CI does, because the
# start-up programs and the benchmarks are built next in this scratch folder from that package.
# SwiftPM 6.3 orders a package's -DTrait flags as a Set iterates, and a root's
# `--enable-all-traits` and a dependent's trait list iterate differently even with a fixed hash
# seed, so every switch of root package compiled the library's modules again (60 s of a core for the
# start-up programs, 2026-12-04; swiftlang/swift-package-manager#10525).
case "${PREFS_RELEASE_FROM:-}" in
    "") ;;
    Benchmarks) flags=("${release_flags[@]}" --package-path Benchmarks --scratch-path "$scratch") ;;
    *) echo "prefs-release: PREFS_RELEASE_FROM is empty or Benchmarks, not '$PREFS_RELEASE_FROM'" >&2; exit 2 ;;
esac
echo "== building prefs (release, static Swift runtime and Foundation)" >&2
swift build "${flags[@]}" --product prefs >&2
bin="$(swift build "${flags[@]}" --show-bin-path)"

mkdir -p "$out/bin" "$out/share/man/man1"
strip --strip-all -o "$out/bin/prefs" "$bin/prefs"

echo "== the man page (swift-argument-parser's generate-manual)" >&2
manual="$scratch/generate-manual"
if [ ! -x "$manual/.build/debug/generate-manual" ]; then
    # The tool is an executable target of swift-argument-parser, not a product a dependent can
    # build, so it is built from the copy of that package this build resolved. In debug: it
    # runs once, on one help text, and a debug build of it compiles faster than a release one.
    rm -rf "$manual"
    cp -R "$scratch/checkouts/swift-argument-parser" "$manual"
    swift build --package-path "$manual" --product generate-manual >&2
fi
"$manual/.build/debug/generate-manual" "$out/bin/prefs" --output-directory "$out/share/man/man1" >&2
[ -s "$out/share/man/man1/prefs.1" ] || { echo "prefs-release: no man page was generated" >&2; exit 1; }

size=$(du -h "$out/bin/prefs" | cut -f1)
echo "prefs $("$out/bin/prefs" --version | sed 's/^prefs //'), $size, needs: $(ldd "$out/bin/prefs" | awk '{print $1}' | grep -v -e linux-vdso -e ld-linux | tr '\n' ' ')" >&2
echo "$out/bin/prefs"
