#!/usr/bin/env bash
# `make man`: regenerates doc/practice.1.
#
# swift-argument-parser's GenerateManual plugin (`swift package generate-manual`) builds
# the package and makes the page from the command definitions: every command, argument
# and option with its help. What the plugin cannot know is added from the program itself:
# `practice --manual-sections` (Sources/practice/Manual.swift) prints the KEYS,
# ENVIRONMENT, FILES, EXIT STATUS and EXAMPLES sections, which take the place of the
# plugin's generic EXIT STATUS. The page is dated by the last commit, so it only changes when the program
# does. Characters beyond ASCII are written as groff's \[uXXXX] escapes, so that any troff
# (groff without preconv, mandoc) reads the page.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
date=$(git log -1 --format=%cs 2>/dev/null || date +%F)

# Debug is enough: the help text is the same in every configuration.
log=$("$swift" package generate-manual --configuration debug --date "$date" 2>&1) || {
  echo "$log" >&2
  exit 1
}
directory=$(sed -n "s/^Generated manual in '\(file:\/\/\)\{0,1\}\(.*\)'$/\2/p" <<<"$log" | tail -n 1)
page="${directory%/}/practice.1"
[ -f "$page" ] || { echo "make-man: the plugin made no $page" >&2; echo "$log" >&2; exit 1; }
sections=$("$swift" build --show-bin-path)/practice

mkdir -p doc
python3 - "$page" "$sections" doc/practice.1 <<'EOF'
import re, subprocess, sys

page, binary, target = sys.argv[1:]
text = open(page, encoding="utf-8").read()
extra = subprocess.run([binary, "--manual-sections"], check=True, capture_output=True,
                       text=True).stdout
# The plugin's EXIT STATUS (`.Ex -std`) runs from its .Sh to the next .Sh or the end.
match = re.search(r"^\.Sh \"?EXIT STATUS\"?\n(.*?)(?=^\.Sh |\Z)", text, re.M | re.S)
if match is None:
    sys.exit("make-man: the generated page has no EXIT STATUS section to replace")
text = text[:match.start()] + extra + text[match.end():]
# A blank line in a command's discussion is a paragraph break: mdoc's .Pp (a blank line
# is an mdoc error).
text = re.sub(r"\n[ \t]*\n", "\n.Pp\n", text)
text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
open(target, "w", encoding="ascii").write(text)
EOF
echo "make-man: wrote doc/practice.1 ($(wc -l <doc/practice.1) lines)" >&2
