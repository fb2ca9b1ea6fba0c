#!/usr/bin/env python3
"""Lists the longest C++ functions under the given folders, and fails on any over a limit.

    python3 tests/style/function_lengths.py [--max N] [--top K] [--root DIR] FOLDER...
    python3 tests/style/function_lengths.py --self-test

Function extents come from Universal Ctags (`--fields=+ne`: the first and last line of each
function, lambdas included as anonymous functions), so a length is the number of lines from
the signature to the closing brace. Data tables (a function that only lists entries, such as
the figure catalog) are named in ALLOWED with the reason they may be long.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

# name -> why it may exceed the limit. Only tables of data belong here.
ALLOWED = {
    "buildCatalog": "figures/figure_catalog.cpp: one entry per figure, a table",
}


def function_extents(root, folders):
    """(length, 'file:line', qualified name) for every function ctags finds."""
    ctags = shutil.which("ctags-universal") or shutil.which("ctags")
    if ctags is None:
        sys.exit("function_lengths: Universal Ctags is not installed (apt install universal-ctags)")
    cmd = [ctags, "--languages=C++", "--c++-kinds=f", "--fields=+ne", "-R", "-f", "-"] + folders
    out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split("\t")
        fields = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
        if "end" not in fields or "line" not in fields:
            continue
        owner = fields.get("class", "").split("::")[-1]
        name = f"{owner}::{parts[0]}" if owner else parts[0]
        length = int(fields["end"]) - int(fields["line"]) + 1
        rows.append((length, f"{parts[1]}:{fields['line']}", name))
    rows.sort(key=lambda r: (-r[0], r[1]))
    return rows


def over_limit(rows, limit):
    return [r for r in rows if r[0] > limit and r[2].split("::")[-1] not in ALLOWED]


def self_test():
    body = "\n".join(f"  x += {i};" for i in range(70))
    source = f"int longOne() {{\n  int x = 0;\n{body}\n  return x;\n}}\nint shortOne() {{ return 1; }}\n"
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "src"))
        with open(os.path.join(tmp, "src", "a.cpp"), "w") as f:
            f.write(source)
        rows = function_extents(tmp, ["src"])
    names = {r[2]: r[0] for r in rows}
    assert names.get("longOne") == 74, names
    assert names.get("shortOne") == 1, names
    assert [r[2] for r in over_limit(rows, 60)] == ["longOne"], rows
    print("function_lengths self-test: PASS")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="*")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--max", type=int, default=0, help="fail when a function is longer (0: list only)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    rows = function_extents(os.path.abspath(args.root), args.folders or ["app", "figures"])
    print(f"The longest {args.top} functions (lines, where, name):")
    for length, where, name in rows[: args.top]:
        note = f"   [allowed: {ALLOWED[name.split('::')[-1]]}]" if name.split("::")[-1] in ALLOWED else ""
        print(f"{length:5d}  {where}  {name}{note}")
    if args.max:
        bad = over_limit(rows, args.max)
        if bad:
            print(f"\n{len(bad)} function(s) over {args.max} lines:", file=sys.stderr)
            for length, where, name in bad:
                print(f"  {where}: {name} is {length} lines", file=sys.stderr)
            return 1
        print(f"\nNo function over {args.max} lines except the data tables named in ALLOWED.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
