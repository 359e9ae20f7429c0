#!/usr/bin/env bash
# Runs the package's tests from a test bundle already built, without `swift test`.
#
#   bash Scripts/test-bundle.sh BIN_PATH [--filter REGEX] [--skip REGEX] ...
#
# BIN_PATH is the folder `swift build --show-bin-path` names (with the flags the bundle was
# built with); the arguments after it are Swift Testing's own (`--filter`, `--skip`), as
# `swift test` passes them on. Every test of this package is a Swift Testing test, so the
# bundle is run for that library alone.
#
# Why: `swift test --skip-build` loads the whole package graph and plans the build again before
# each run — 8 s of one core with every trait's dependencies — and CI runs the bundle a handful
# of times after the test command (the SQLite matrix three times). The bundle itself starts in
# 0.1 s. The README's test command stays `swift test`; this is for the runs after it.
set -euo pipefail
bin="${1:?usage: $0 BIN_PATH [swift-testing options]}"
shift
bundle="$bin/SQLiteDefaultsPackageTests.xctest"
[ -x "$bundle" ] || { echo "test-bundle: no test bundle at $bundle (build with --build-tests first)" >&2; exit 1; }
# The plain symbols, no colour: the output is read by scripts and logs.
NO_COLOR=1 exec "$bundle" --testing-library swift-testing "$@"
