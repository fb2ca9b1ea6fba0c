#!/usr/bin/env python3
"""The pages tell today's truth (issue 25): every file path that README.md, packaging/README.md
and docs/*.md name exists, every image they embed exists, every relative link leads to a file,
every attnlab-cli command line they show uses a command and options that
`attnlab-cli ... --help` accepts, and none names the checkout's own absolute path (the package
installs the pages).

    check_docs.py SOURCE_DIR ATTNLAB_CLI      (CTest: docs_pages, label 'docs')
    check_docs.py --self-test                 (the checker finds planted mistakes)

Prints one line per problem, `<doc>:<line>: <what>`, and exits 1 when there is any."""

import glob
import os
import re
import subprocess
import sys

# Top-level folders of the source tree: a backticked token starting with one of these is a
# path that must exist. Generated places (build/, runs/, ~) are not checked.
TREE_ROOTS = ("app/", "core/", "analysis/", "widgets/", "figures/", "tests/", "packaging/",
              "docs/", "resources/", "cmake/", ".ci/", "tools/", "third_party/")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
CHECKED = {"paths": 0, "links": 0, "command lines": 0}
LINK = re.compile(r"(!?)\[[^\]]*\]\(([^)\s]+)\)")
# attnlab-cli in a command's position: at the start of a line (after a prompt or variable
# assignments) or after &&, ;, | or $( -- not inside program output or prose.
CLI_LINE = re.compile(r"(?:^\s*(?:\$\s+)?(?:[A-Z_]+=\S+\s+)*|&&\s*|;\s*|\|\s*|\$\(\s*)"
                      r"(?:\S*/)?attnlab-cli\s+(.*)$")
# A run folder's own paths (analysis/step-2000/analysis.json), not the source tree's.
RUN_FOLDER_PATH = re.compile(r"(^|/)(coref-)?step-(\d+|[A-Z])(/|$)")


def expand_braces(path):
    """core/x.{h,cpp} -> [core/x.h, core/x.cpp] (one level, as the docs write it)."""
    m = re.search(r"\{([^{}]+)\}", path)
    if not m:
        return [path]
    return [path[:m.start()] + alt + path[m.end():] for alt in m.group(1).split(",")]


def path_exists(root, path, modules=False):
    """modules: a source file may be named without its extension (core/model/masked_lm)."""
    path = path.split("#")[0].rstrip(".,:;)")
    if not path:
        return True
    for p in expand_braces(path):
        full = os.path.join(root, p)
        if any(c in p for c in "*?["):
            if not glob.glob(full):
                return False
        elif not os.path.exists(full) and not (modules and glob.glob(full + ".*")):
            return False
    return True


def tree_paths(line):
    for span in CODE_SPAN.findall(line):
        for token in span.split():
            token = token.strip("'\"")
            if (token.startswith(TREE_ROOTS) and "<" not in token and "$" not in token
                    and not RUN_FOLDER_PATH.search(token)):
                yield token


def check_paths_and_links(root, doc, lines, problems):
    doc_dir = os.path.dirname(doc)
    for n, line in enumerate(lines, 1):
        where = f"{os.path.relpath(doc, root)}:{n}"
        for token in tree_paths(line):
            CHECKED["paths"] += 1
            if not path_exists(root, token, modules=True):
                problems.append(f"{where}: names {token}, which does not exist")
        for bang, target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue  # a URL or an anchor in the same page
            CHECKED["links"] += 1
            if not path_exists(doc_dir, target):
                kind = "embeds the image" if bang else "links to"
                problems.append(f"{where}: {kind} {target}, which does not exist")


def check_no_checkout_path(root, doc, lines, problems):
    """The package installs these pages: none may name the folder it was built from (the
    package test refuses such a package; CI's checkout may lie where this one does)."""
    checkout = os.path.realpath(root)
    for n, line in enumerate(lines, 1):
        if checkout in line:
            problems.append(f"{os.path.relpath(doc, root)}:{n}: names this checkout's path "
                            f"{checkout}, which the installed page must not")


def code_block_lines(lines):
    inside = False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        if inside:
            yield n, line


class CliHelp:
    """attnlab-cli's commands and each command's options, from its own --help."""

    def __init__(self, cli):
        self.cli = cli
        self.cache = {}
        self.commands = self.subcommands([])

    def subcommands(self, command):
        text = self.help(command)
        if "Subcommands:" not in text:
            return set()
        return set(re.findall(r"^\s{2}(\w[\w-]*)\s", text.split("Subcommands:", 1)[1], re.M))

    def help(self, command):
        key = tuple(command)
        if key not in self.cache:
            r = subprocess.run([self.cli, *command, "--help"], capture_output=True, text=True,
                               timeout=60)
            self.cache[key] = r.stdout + r.stderr
        return self.cache[key]

    def options(self, command):
        return set(re.findall(r"(--[\w-]+)", self.help(command)))


def check_cli_lines(root, doc, lines, cli, problems):
    for n, line in code_block_lines(lines):
        m = CLI_LINE.search(line.split("#")[0])
        if not m:
            continue
        words = m.group(1).split()
        if not words or words[0].startswith("-") or words[0][0].isdigit() or words[0].endswith(":"):
            continue  # --version / --help, or output (its version line, "export: error")
        command = words[0]
        CHECKED["command lines"] += 1
        where = f"{os.path.relpath(doc, root)}:{n}"
        if command not in cli.commands:
            problems.append(f"{where}: attnlab-cli has no command '{command}'")
            continue
        path = [command]
        sub = cli.subcommands(path)
        if sub and len(words) > 1 and words[1] in sub:
            path.append(words[1])  # attnlab-cli probe coref ...
        known = cli.options(path)
        for word in words[len(path):]:
            option = word.split("=")[0].rstrip(".,;:)")
            if option.startswith("--") and option not in known:
                problems.append(f"{where}: attnlab-cli {' '.join(path)} does not accept {option}")


def check(root, cli_path):
    docs = [os.path.join(root, p) for p in ("README.md", "packaging/README.md")]
    docs = [p for p in docs if os.path.exists(p)] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    cli = CliHelp(cli_path) if cli_path else None
    problems = []
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            lines = f.read().splitlines()
        check_paths_and_links(root, doc, lines, problems)
        check_no_checkout_path(root, doc, lines, problems)
        if cli:
            check_cli_lines(root, doc, lines, cli, problems)
    return docs, problems


def self_test():
    """The checker finds a missing path, a broken link, a missing image, a wrong command and
    an unknown option, and accepts their correct forms."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "core"))
        open(os.path.join(root, "core", "a.h"), "w").close()
        open(os.path.join(root, "core", "a.cpp"), "w").close()
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write("`core/a.{h,cpp}` and `core/missing.h`\n[ok](docs/x.md) [bad](docs/y.md)\n"
                    "![shot](docs/none.png)\n```\nattnlab-cli train --config x --bogus\n"
                    "attnlab-cli frobnicate\n```\n"
                    f"built in {os.path.realpath(root)}/build\n")
        open(os.path.join(root, "docs", "x.md"), "w").close()
        fake = os.path.join(root, "fake-cli")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nif [ \"$1\" = --help ]; then printf 'Subcommands:\\n  train  x\\n';"
                    " else echo '  --config TEXT'; fi\n")
        os.chmod(fake, 0o755)
        _, problems = check(root, fake)
    expected = ["core/missing.h", "docs/y.md", "docs/none.png", "--bogus", "'frobnicate'",
                "this checkout's path"]
    missed = [e for e in expected if not any(e in p for p in problems)]
    extra = [p for p in problems if not any(e in p for e in expected)]
    if missed or extra:
        print("self-test FAILED: missed", missed, "unexpected", extra)
        return 1
    print(f"self-test: the {len(expected)} planted mistakes were found, nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    docs, problems = check(sys.argv[1], sys.argv[2])
    for p in problems:
        print(p)
    counts = ", ".join(f"{v} {k}" for k, v in CHECKED.items())
    print(f"check_docs: {len(docs)} pages ({counts} checked), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
