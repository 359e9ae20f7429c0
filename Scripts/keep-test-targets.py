#!/usr/bin/env python3
"""Removes from a copy of Package.swift every `.testTarget(...)` not named on the command line.

    python3 Scripts/keep-test-targets.py PATH/Package.swift NAME [NAME ...]

Scripts/consumers.sh builds the macro's tests at the lowest swift-syntax in a copy of this
repository; `swift build --build-tests` builds every test target, so the copy keeps only the ones
it runs; CI's background lane (.ci/run) trims its own clone's manifest the same way for the
sanitizer builds and restores it after. Never run on the repository's own manifest. Fails when a
name is not a test target of the manifest, or when nothing was removed (the manifest's shape
changed under it).
"""
import re
import sys


def test_targets(text):
    """Yields (start, end, name) of each `.testTarget(` call, its parentheses matched while
    skipping string literals and // comments."""
    for match in re.finditer(r"\.testTarget\(", text):
        depth, index = 0, match.start() + len(".testTarget")
        while index < len(text):
            char = text[index]
            if text.startswith("//", index):
                index = text.index("\n", index)
                continue
            if char == '"':
                index = text.index('"', index + 1) + 1
                continue
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    break
            index += 1
        end = index + 1
        name = re.search(r'name:\s*"([^"]+)"', text[match.start():end]).group(1)
        # The comma after the call goes with it.
        trailing = re.match(r"\s*,", text[end:])
        yield match.start(), end + (trailing.end() if trailing else 0), name


def main():
    path, keep = sys.argv[1], set(sys.argv[2:])
    text = open(path).read()
    found = list(test_targets(text))
    names = {name for _, _, name in found}
    missing = keep - names
    if missing:
        sys.exit(f"keep-test-targets: not test targets of {path}: {', '.join(sorted(missing))}")
    removed = 0
    for start, end, name in reversed(found):
        if name not in keep:
            text = text[:start] + text[end:]
            removed += 1
    if removed == 0:
        sys.exit(f"keep-test-targets: nothing to remove from {path}")
    open(path, "w").write(text)
    print(f"keep-test-targets: kept {', '.join(sorted(keep))}; removed {removed} test targets")


main()
