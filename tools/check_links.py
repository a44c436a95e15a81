#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/*.md: every linked file exists and every
#anchor names a heading of the page it points to (GitHub's rule: lower case, punctuation dropped,
spaces to dashes). Prints each broken link; exit 1 if any.

    tools/check_links.py [ROOT]
"""
import os
import re
import sys


def anchors(path):
    out = set()
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    pages = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    broken = 0
    for page in pages:
        text = open(os.path.join(root, page), encoding="utf-8").read()
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            link = m.group(1)
            if re.match(r"[a-z]+:", link):
                continue
            path, _, anchor = link.partition("#")
            target = os.path.normpath(os.path.join(root, os.path.dirname(page), path)) if path else os.path.join(root, page)
            if not os.path.exists(target):
                print(f"{page}: {link}: no such file")
                broken += 1
            elif anchor and target.endswith(".md") and anchor not in anchors(target):
                print(f"{page}: {link}: no heading '{anchor}' in {os.path.relpath(target, root)}")
                broken += 1
    print(f"{len(pages)} pages, {broken} broken link(s)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
