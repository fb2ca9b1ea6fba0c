#!/usr/bin/env python3
"""Fails when a C++ function under the given folders is longer than a limit (issue 40).

    python3 tests/layering/check_function_length.py --root DIR [--max 80] [--list N] FOLDER...

A function's length is the number of lines from the line of its name to its closing brace.
Its own parser, not a line heuristic: comments, string, character and raw string literals and
preprocessor lines are blanked before braces are counted (a '{' in a char literal or a
comment opens nothing), and every '{' outside a function body is classified: namespace,
extern "C" block, class/struct/union/enum body, initialiser (a table at namespace scope, a
member's brace initialiser, a constructor's member initialiser), function body, or lambda
body. A lambda or local class inside a function is part of that function; a lambda outside
any function (a namespace-scope `auto f = [] {...};`, one inside a table) is measured as a
function of its own. A file whose braces do not balance is an error, not a pass.

A function may be longer only when it is a declarative table (one entry per key, rule or
figure) and a comment says so: a comment containing "Declarative table" between the previous
declaration and the function (in practice, the line above it).

cmake -P check_function_length.cmake runs it for CTest (tests/CMakeLists.txt, layering).
"""

import argparse
import os
import re
import sys

EXEMPT_MARK = "Declarative table"
SUFFIXES = (".cpp", ".cc", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".ipp", ".inl")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Tokens before a '(' that never name a function's parameter list.
NOT_A_NAME = {"noexcept", "decltype", "throw", "alignas", "__attribute__", "__declspec",
              "requires", "sizeof", "alignof", "static_assert", "explicit", "if", "while",
              "for", "switch", "return"}
CLASS_KEYS = {"class", "struct", "union", "enum"}
ACCESS = {"public", "private", "protected", "signals", "slots", "Q_SIGNALS", "Q_SLOTS"}


class ParseError(Exception):
    pass


# ---- blanking: what is not code becomes spaces (newlines kept, so offsets keep their lines) ----

def blank(text):
    """(code, comments): code with comments, literal contents and preprocessor lines blanked;
    comments as (start offset, end offset, text)."""
    out = list(text)
    comments = []
    n = len(text)
    i = 0
    line_start = True  # only whitespace since the last newline (a '#' there is a directive)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text.startswith("/*", j):  # a block comment may run past the line
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            wipe(i, j)
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 1
                j += 1
            comments.append((i, j, text[i:j]))
            wipe(i, j)
            i = j
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            j = n if end < 0 else end + 2
            comments.append((i, j, text[i:j]))
            wipe(i, j)
            i = j
            continue
        if c == '"':
            prefix = re.search(r"(?:^|[^A-Za-z0-9_])(?:u8|u|U|L)?R$", text[max(0, i - 4):i])
            if prefix:  # raw string R"delim( ... )delim"
                open_paren = text.find("(", i + 1)
                if open_paren < 0:
                    raise ParseError(f"offset {i}: a raw string without '('")
                delim = text[i + 1:open_paren]
                close = text.find(")" + delim + '"', open_paren + 1)
                if close < 0:
                    raise ParseError(f"offset {i}: an unterminated raw string")
                j = close + len(delim) + 2
            else:
                j = i + 1
                while j < n and text[j] != '"':
                    if text[j] == "\\":
                        j += 1
                    elif text[j] == "\n":
                        raise ParseError(f"offset {i}: a string literal runs past its line")
                    j += 1
                j += 1
            wipe(i + 1, j - 1)
            i = j
            continue
        if c == "'":
            # 1'000'000: a digit separator when the token before it is a number.
            k = i
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_'."):
                k -= 1
            if k < i and text[k].isdigit():
                out[i] = " "
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'":
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n":
                    raise ParseError(f"offset {i}: a character literal runs past its line")
                j += 1
            wipe(i + 1, j)
            i = j + 1
            continue
        i += 1
    return "".join(out), comments


# ---- tokens ------------------------------------------------------------------------------

class Tok:
    __slots__ = ("text", "start", "end", "line")

    def __init__(self, text, start, end, line):
        self.text, self.start, self.end, self.line = text, start, end, line

    def __repr__(self):
        return f"{self.text}@{self.line}"


TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\.?[0-9][A-Za-z0-9_.]*)
  | (?P<str>"[ \n]*"|'[ ]*')
  | (?P<punct>::|->|.)
""", re.VERBOSE | re.DOTALL)


def tokenize(code):
    toks = []
    line = 1
    pos = 0
    n = len(code)
    while pos < n:
        m = TOKEN.match(code, pos)
        kind = m.lastgroup
        text = m.group(kind)
        if kind != "ws":
            if kind == "str":
                text = '""'
            toks.append(Tok(text, m.start(), m.end(), line))
        line += m.group(0).count("\n")
        pos = m.end()
    return merge_operators(toks)


def merge_operators(toks):
    """`operator` and its symbol as one name token: operator(), operator==, operator bool."""
    out = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.text == "operator":
            j = i + 1
            parts = []
            if j + 1 < len(toks) and toks[j].text == "(" and toks[j + 1].text == ")":
                parts, j = ["()"], j + 2
            else:
                while j < len(toks) and toks[j].text not in ("(", ";", "{", "}"):
                    parts.append(toks[j].text)
                    j += 1
            sep = " " if parts and IDENT.fullmatch(parts[0]) else ""
            out.append(Tok("operator" + sep + "".join(parts), t.start, toks[j - 1].end, t.line))
            i = j
            continue
        out.append(t)
        i += 1
    return out


def is_name(text):
    return bool(IDENT.fullmatch(text)) or text.startswith("operator")


# ---- structure ---------------------------------------------------------------------------

class Function:
    def __init__(self, name, line, end_line, exempt, kind):
        self.name, self.line, self.end_line, self.exempt, self.kind = name, line, end_line, exempt, kind

    @property
    def length(self):
        return self.end_line - self.line + 1


def matching_back(toks, close, lo, open_text, close_text):
    """Index of the token opening the group that toks[close] closes, searching down to lo."""
    depth = 0
    for k in range(close, lo - 1, -1):
        if toks[k].text == close_text:
            depth += 1
        elif toks[k].text == open_text:
            depth -= 1
            if depth == 0:
                return k
    return None


def lambda_intro(toks, brace, lo):
    """Index of the '[' of the lambda whose body opens at toks[brace], or None."""
    k = brace - 1
    steps = 0
    while k >= lo and steps < 64:
        t = toks[k].text
        if t == ")":
            opening = matching_back(toks, k, lo, "(", ")")
            if opening is None:
                return None
            if opening > lo and toks[opening - 1].text in ("noexcept", "decltype", "throw"):
                k = opening - 2
                continue
            k = opening - 1
            if k < lo or toks[k].text != "]":
                return None
            t = "]"
        if t == "]":
            opening = matching_back(toks, k, lo, "[", "]")
            if opening is None:
                return None
            before = toks[opening - 1].text if opening > lo else ""
            # a[i] {, f()[0] {: a subscript, not a capture list; [[attributes]] neither.
            if is_name(before) and before not in ("return", "co_return", "co_yield") or \
                    before in (")", "]", '""') or before[:1].isdigit():
                return None
            if opening + 1 < len(toks) and toks[opening + 1].text == "[":
                return None
            return opening
        if t in (";", "{", "}", "=", "(", ",") or (t not in ("::", "<", ">", "*", "&", "->", "...")
                                                  and not is_name(t)):
            return None
        k -= 1
        steps += 1
    return None


def top_level(toks, lo, hi):
    """Indices in [lo, hi) at paren, bracket and angle depth 0, with their depth-0 groups:
    yields (index, token text)."""
    paren = bracket = angle = 0
    for k in range(lo, hi):
        t = toks[k].text
        if t == "(":
            if paren == 0 and bracket == 0 and angle == 0:
                yield k, t
            paren += 1
        elif t == ")":
            paren -= 1
        elif t == "[":
            bracket += 1
        elif t == "]":
            bracket -= 1
        elif paren == 0 and bracket == 0:
            if t == "<" and k > lo and (is_name(toks[k - 1].text) or toks[k - 1].text == ">"):
                angle += 1
            elif t == ">" and angle > 0:
                angle -= 1
            elif angle == 0:
                yield k, t


def parameter_list(toks, lo, hi):
    """(index of the parameter list's '(', index of a ctor initialiser list's ':' or None):
    the last depth-0 '(' after a name, before any '->' or initialiser ':'."""
    params = None
    colon = None
    for k, t in top_level(toks, lo, hi):
        if t == "->" and params is not None:
            break
        if t == ":" and params is not None:
            colon = k
            break
        if t == "(" and k > lo and is_name(toks[k - 1].text) and toks[k - 1].text not in NOT_A_NAME:
            params = k
    return params, colon


def qualified_name(toks, at, lo):
    """The name ending at toks[at], with its A::B<T>:: qualifiers and a '~'."""
    parts = [toks[at].text]
    k = at - 1
    while k - 1 >= lo and toks[k].text == "::":
        q = k - 1
        if toks[q].text == ">":
            q = matching_back(toks, q, lo, "<", ">")
            if q is None:
                break
            q -= 1
        if q < lo or not is_name(toks[q].text):
            break
        parts.insert(0, "::")
        parts.insert(0, toks[q].text)
        k = q - 1
    if k >= lo and toks[k].text == "~":
        parts[-1] = "~" + parts[-1]
    return "".join(parts)


def class_name(toks, lo, hi):
    for k, t in top_level(toks, lo, hi):
        if t in CLASS_KEYS:
            j = k + 1
            if j < hi and toks[j].text in ("class", "struct"):  # enum class
                j += 1
            parts = []
            while j < hi and (is_name(toks[j].text) or toks[j].text == "::") and \
                    toks[j].text not in ("final", "alignas"):
                parts.append(toks[j].text)
                j += 1
            return "".join(parts)
    return ""


class Scope:
    __slots__ = ("kind", "name", "header_lo", "ctor_init", "function")

    def __init__(self, kind, name="", function=None):
        self.kind = kind          # namespace, class, init (outside bodies); function, block
        self.name = name          # a class's name
        self.header_lo = None     # first token of the declaration being read
        self.ctor_init = False    # between `Foo() :` and the body, after a member's `a_{..}`
        self.function = function  # (name, line, exempt, kind) of a function or lambda body


class Parser:
    """Walks the tokens once with a stack of scopes; collects every function's extent."""

    def __init__(self, toks, comments):
        self.toks, self.comments = toks, comments
        self.stack = [Scope("namespace")]
        self.boundary_end = 0  # offset after the token that ended the previous declaration
        self.found = []

    def run(self):
        toks = self.toks
        for k, tok in enumerate(toks):
            top = self.stack[-1]
            if top.kind in ("function", "block"):
                self.in_body(tok)
                continue
            t = tok.text
            if top.header_lo is None and t not in (";", "}"):
                top.header_lo = k
            lo = top.header_lo if top.header_lo is not None else k
            if t == ";":
                self.end_declaration(top, tok)
            elif t == ":" and top.kind == "class" and k > lo and toks[k - 1].text in ACCESS:
                self.end_declaration(top, tok)
            elif t == "}":
                self.close_declaration_scope(tok)
            elif t == "{":
                self.open_brace(k, lo)
        if len(self.stack) != 1:
            raise ParseError(f"{len(self.stack) - 1} '{{' never closed "
                             f"(the innermost: {self.stack[-1].kind})")
        return self.found

    def end_declaration(self, scope, tok):
        scope.header_lo, scope.ctor_init = None, False
        self.boundary_end = tok.end

    def in_body(self, tok):
        if tok.text == "{":
            self.stack.append(Scope("block"))
        elif tok.text == "}":
            closed = self.stack.pop()
            if closed.function is not None:
                name, line, exempt, kind = closed.function
                self.found.append(Function(name, line, tok.line, exempt, kind))
                # A function's body ends its declaration; a lambda's goes on (`= [] {..};`).
                if kind == "function":
                    self.end_declaration(self.stack[-1], tok)

    def close_declaration_scope(self, tok):
        if len(self.stack) == 1:
            raise ParseError(f"line {tok.line}: '}}' closes nothing")
        closed = self.stack.pop()
        # After a class body or an initialiser the declaration goes on to its ';'
        # (`} x;`, `};`, `Foo() : a_{1} {`); after a namespace it is over.
        if closed.kind == "namespace":
            self.end_declaration(self.stack[-1], tok)

    def open_brace(self, k, lo):
        """Classifies the '{' at toks[k] outside any function body and pushes its scope."""
        toks, top = self.toks, self.stack[-1]
        intro = lambda_intro(toks, k, lo)
        if intro is not None:
            if intro - 2 >= lo and toks[intro - 1].text == "=" and is_name(toks[intro - 2].text):
                name, line = toks[intro - 2].text, toks[intro - 2].line
            else:
                name, line = "<lambda>", toks[intro].line
            self.push_body(k, lo, name, line, "lambda")
            return
        depth = sum((t.text in "([") - (t.text in ")]") for t in toks[lo:k])
        if top.kind == "init" or depth > 0:
            self.stack.append(Scope("init"))  # a table's row, a default argument's `{}`
            return
        if top.ctor_init:
            if toks[k - 1].text in (")", "}"):
                self.push_function(k, lo)
            else:
                self.stack.append(Scope("init"))
            return
        header = [t for _, t in top_level(toks, lo, k)]
        texts = [toks[j].text for j in range(lo, k)]
        if "namespace" in texts[:3] or texts == ["extern", '""']:
            self.stack.append(Scope("namespace"))
            self.end_declaration(top, toks[k])
            return
        if "(" in header and "=" not in header:
            params, colon = parameter_list(toks, lo, k)
            if params is not None:
                if colon is not None and toks[k - 1].text not in (")", "}"):
                    top.ctor_init = True  # a member's brace initialiser: Foo() : a_{1} {
                    self.stack.append(Scope("init"))
                else:
                    self.push_function(k, lo)
                return
        if any(t in CLASS_KEYS for t in header) and "=" not in header:
            self.stack.append(Scope("class", class_name(toks, lo, k)))
            self.end_declaration(top, toks[k])
            top.header_lo = lo  # the declaration goes on after the body: `} name;`
            return
        self.stack.append(Scope("init"))

    def push_function(self, k, lo):
        toks = self.toks
        params, _ = parameter_list(toks, lo, k)
        if params is None:
            raise ParseError(f"line {toks[k].line}: a function body without a parameter list")
        name = qualified_name(toks, params - 1, lo)
        owner = next((s.name for s in reversed(self.stack) if s.kind == "class" and s.name), "")
        if owner and "::" not in name:
            name = f"{owner}::{name}"
        self.push_body(k, lo, name, toks[params - 1].line, "function")

    def push_body(self, k, lo, name, line, kind):
        exempt = any(self.boundary_end <= c[0] and c[1] <= self.toks[lo].start and EXEMPT_MARK in c[2]
                     for c in self.comments)
        self.stack[-1].ctor_init = False
        self.stack.append(Scope("function", function=(name, line, exempt, kind)))
        # Inside the class body, the next member's comments start after its '{'.
        self.boundary_end = self.toks[k].end


def functions_in(text):
    code, comments = blank(text)
    return Parser(tokenize(code), comments).run()


# ---- the check ---------------------------------------------------------------------------

def sources(root, folders):
    for folder in folders:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            raise SystemExit(f"function length check: folder '{base}' does not exist")
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(SUFFIXES):
                    yield os.path.join(dirpath, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--root", default=".")
    parser.add_argument("--max", type=int, default=80)
    parser.add_argument("--list", type=int, default=0, help="also print the N longest functions")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    rows, errors = [], []
    files = 0
    for path in sources(root, args.folders):
        rel = os.path.relpath(path, root)
        files += 1
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for fn in functions_in(f.read()):
                    rows.append((rel, fn))
        except ParseError as e:
            errors.append(f"  {rel}: cannot read its structure: {e}")
    rows.sort(key=lambda r: (-r[1].length, r[0], r[1].line))
    if args.list:
        print(f"The longest {args.list} functions (lines, where, name):")
        for rel, fn in rows[: args.list]:
            note = "   [declarative table]" if fn.exempt else ""
            print(f"{fn.length:5d}  {rel}:{fn.line}  {fn.name}{note}")
    over = [(rel, fn) for rel, fn in rows if fn.length > args.max and not fn.exempt]
    exempt = [(rel, fn) for rel, fn in rows if fn.length > args.max and fn.exempt]
    for rel, fn in exempt:
        print(f"exempt (\"{EXEMPT_MARK}\" comment): {rel}:{fn.line}: {fn.name} is {fn.length} lines")
    folders = ", ".join(args.folders)
    if over or errors:
        print(f"function length violation: no function in {folders} may be over {args.max} lines "
              f"but a declarative table marked with a \"{EXEMPT_MARK}\" comment:", file=sys.stderr)
        for rel, fn in over:
            print(f"  {rel}:{fn.line}: {fn.name} is {fn.length} lines (limit {args.max})", file=sys.stderr)
        for e in errors:
            print(e, file=sys.stderr)
        return 1
    print(f"function length check passed: {len(rows)} functions in {files} files under {folders}, "
          f"none over {args.max} lines but {len(exempt)} declarative table(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
