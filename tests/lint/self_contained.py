#!/usr/bin/env python3
"""The repository stands alone: nothing in it cites what a reader of it cannot open.

Every tracked text file (docs/ included) is checked for
  - design notes kept outside the repository, by name, and paths into a sibling `shared/` folder;
  - Markdown documents that do not exist in the repository (a cited name must resolve: from the root,
    from the citing file's folder, or inside docs/; a bare name outside docs/ only to the root
    or the file's own folder, so a design note is cited as `docs/DESIGN.md`);
  - issue-tracker references: "issue N", "issues N and M", "issue #N", an issue cited by its
    title (the word issue followed by a quoted title), a bare "#N", and "bug N" / "PR N" without
    a project name before it. An upstream project's number is fine with the project named
    ("ompi#N", "Open MPI bug N") or as a URL.
Spec sections ("spec §8.4.1", "[G1 §2.1.5]") are public standards and always fine.
Prints each offence as path:line: text and exits 1 if there is any.
"""
import pathlib
import re
import subprocess
import sys

# Names of notes that never were part of the repository. Spelt in pieces so that this file
# passes its own check.
OUTSIDE_NOTES = ["STYLE" + ".md", "PLATFORM" + "-FACTS", "GPI2" + "-COMPAT", "FAST" + "PATH", "GASNET" + "-NOTES",
                 "MEMORY" + "-KINDS"]
OUTSIDE = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in OUTSIDE_NOTES) + r")(?![\w-])")
SHARED = re.compile(r"\.\./shared\b|(?<![\w/.-])shared/[A-Z][\w-]*\.md")
MARKDOWN = re.compile(r"[\w./-]*[\w-]\.md\b")

ISSUE = [
    re.compile(r"\b[Ii]ssues?\s*(?:#\s*)?\d+"),  # issue N, issues N, issue #N
    re.compile(r"\b[Ii]ssue\s*[\"\u201c]"),       # the word issue, then a quoted title
    re.compile(r"(?<![\w&\"'$#])#\d+\b"),        # #N (not project#N, a colour "#NNN", an entity)
]
# The word issue at the end of one line and the number at the start of the next.
WRAPPED_ISSUE_END = re.compile(r"\b[Ii]ssues?\s*$")
WRAPPED_ISSUE_START = re.compile(r"^\s*(?://+|#+|\*+|!+)?\s*#?\d")
# "bug N", "PR #N", "pull request N", "ticket N": fine only after a project's name.
NUMBERED = re.compile(r"(\S+)?\s*\b(?:[Bb]ug|PR|[Pp]ull request|[Tt]icket)\s*#?\d+")
NOT_A_PROJECT = {"its", "our", "their", "the", "this", "that", "a", "an", "see", "in", "of", "from", "by", "(", "and",
                 "or", "as", "per", "for", "fixed", "fixes", "closes"}


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], check=True, capture_output=True).stdout
        return [root / p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        skip = re.compile(r"^(build[^/]*|\.git|\.cache)(/|$)")
        return [p for p in root.rglob("*") if p.is_file() and not skip.match(p.relative_to(root).as_posix())]


def markdown_resolves(root, rel, token, md_files):
    token = token.lstrip("./") if token.startswith("./") else token.lstrip("/")
    if token.startswith("path/to/"):
        return True  # a placeholder in usage text
    in_docs = rel.parts[0] == "docs"
    here = rel.parent
    if "/" not in token and not in_docs:
        return token in md_files or (here / token).as_posix() in md_files
    candidates = [pathlib.PurePosixPath(token), here / token, pathlib.PurePosixPath("docs") / token]
    for c in candidates:
        parts = []
        for part in c.parts:  # resolve ".." lexically
            if part == "..":
                if parts:
                    parts.pop()
            elif part != ".":
                parts.append(part)
        if "/".join(parts) in md_files:
            return True
    return False


def check(root):
    files = tracked_files(root)
    md_files = {p.relative_to(root).as_posix() for p in files if p.suffix == ".md"}
    offences = []
    for path in sorted(files):
        rel = pathlib.PurePosixPath(path.relative_to(root).as_posix())
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data:
            continue  # binary
        text = data.decode("utf-8", errors="replace")
        previous = ""
        for number, line in enumerate(text.splitlines(), 1):
            why = []
            if WRAPPED_ISSUE_END.search(previous) and WRAPPED_ISSUE_START.match(line):
                why.append("cites an issue-tracker number (across a line break)")
            previous = line
            if OUTSIDE.search(line) or SHARED.search(line):
                why.append("cites a note outside the repository")
            for m in MARKDOWN.finditer(line):
                if not markdown_resolves(root, rel, m.group(0), md_files):
                    why.append(f"cites {m.group(0)}, which the repository does not hold")
            if any(p.search(line) for p in ISSUE):
                why.append("cites an issue-tracker number")
            for m in NUMBERED.finditer(line):
                before = (m.group(1) or "").lower().strip("([\"'")
                if before == "" or before in NOT_A_PROJECT:
                    why.append("cites a bug or PR number without naming the project")
            if why:
                offences.append(f"{rel}:{number}: {'; '.join(why)}: {line.strip()}")
    return offences


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    offences = check(root)
    for o in offences:
        print(o)
    if offences:
        print(f"{len(offences)} line(s) cite what the repository does not hold: point to docs/, a spec "
              "section or the code instead, or state the reason in place", file=sys.stderr)
        return 1
    print("self-contained: no outside notes, unknown documents or tracker numbers cited")
    return 0


if __name__ == "__main__":
    sys.exit(main())
