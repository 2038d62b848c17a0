#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# man_pages.sh: the hand-written pages in man/ keep up with the code. There is a page
# for each command of 'pfclab --help' and no other; each command's page names every long
# option of its option table (as 'pfclab CMD --help' lists it, second names included)
# and pfclab.1 the front door's; pfclab-experiment.5 names every key the experiment
# reader accepts (the keys[] tables of scripts/run/exp.c and cpoint.c, traffic's tkeys[]);
# every page renders with groff -ww and man --warnings without a warning.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
man_dir=$PFCLAB_ROOT/man
[ -x "$PFCLAB" ] || { plan 1; skip man_pages "no pfclab binary at $PFCLAB"; finish; }
cmds=$("$PFCLAB" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
plan $(($(wc -w <<<"$cmds") + 5))

# The page's text with roff's escapes for '-' and fonts taken out: "--peer-timeout".
page_text() { sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\f(..//g; s/\\&//g' "$1"; }
# Long options of a --help text on standard input: "--name" of each option line
# ("  -p, --port N", "      --bind ADDR") and of each "(also --name)".
help_opts() {
	sed -n -E 's/^  (-[A-Za-z0-9], |    )--([a-z0-9][a-z0-9-]*).*/\2/p;
		s/.*\(also --([a-z0-9][a-z0-9-]*)\).*/\1/p' | sort -u
}

# A page per command and no other (besides pfclab.1 and pfclab-experiment.5).
want=$(for c in $cmds; do echo "pfclab-$c.1"; done; echo pfclab.1; echo pfclab-experiment.5)
have=$(cd "$man_dir" 2>/dev/null && ls)
if [ -n "$cmds" ] && [ "$(sort <<<"$want")" = "$(sort <<<"$have")" ]; then
	ok "man/ has a page per command ($(wc -w <<<"$cmds")), pfclab.1 and pfclab-experiment.5"
else
	fail "man/ has a page per command" "$(diff <(sort <<<"$want") <(sort <<<"$have") |
		grep '^[<>]' | tr '\n' ' ')"
fi

for c in $cmds; do
	f=$man_dir/pfclab-$c.1
	opts=$("$PFCLAB" "$c" --help 2>/dev/null | help_opts)
	missing=
	if [ -f "$f" ]; then
		txt=$(page_text "$f")
		for o in $opts; do
			grep -qE -- "--$o([^a-z0-9-]|$)" <<<"$txt" || missing+=" --$o"
		done
	else
		missing=" (no page)"
	fi
	if [ -n "$opts" ] && [ -z "$missing" ]; then
		ok "pfclab-$c.1 names the $(wc -w <<<"$opts") long options of '$c --help'"
	else
		fail "pfclab-$c.1 names every long option of '$c --help'" "missing:${missing:- none found in --help}"
	fi
done

# pfclab.1: the front door's options and every command's page in SEE ALSO.
missing=
txt=$(page_text "$man_dir/pfclab.1" 2>/dev/null)
for o in $("$PFCLAB" --help | sed -n '1s/^Usage:/&/p' | grep -o -- '--[a-z-]*'); do
	grep -qE -- "$o([^a-z0-9-]|$)" <<<"$txt" || missing+=" $o"
done
for c in $cmds; do
	grep -q "^\.BR pfclab-$c (1)" <<<"$txt" || missing+=" pfclab-$c(1)"
done
grep -q "^\.BR pfclab-experiment (5)" <<<"$txt" || missing+=" pfclab-experiment(5)"
if [ -n "$txt" ] && [ -z "$missing" ]; then ok "pfclab.1 names --help, --version and every page"
else fail "pfclab.1 names --help, --version and every page" "missing:${missing:- pfclab.1}"; fi

# pfclab-experiment.5: every key of the reader's tables, in bold (.B/.BR or \fB) or as
# a section's name (.SS).
keys=$(for f in scripts/run/exp.c scripts/run/cpoint.c; do
	awk '/ keys\[\] = \{/ { on = 1 } on { print } on && /NULL \}/ { on = 0 }' "$PFCLAB_ROOT/$f"
done | grep -o '"[a-z_]*"' | tr -d '"'
awk '/tkeys\[\] = \{/ { on = 1 } on && /^\};/ { on = 0 } on' "$PFCLAB_ROOT/scripts/run/exp.c" |
	sed -n 's/^[[:space:]]*{ "\([a-z_]*\)".*/\1/p')
keys=$(sort -u <<<"$keys")
missing=
txt=$(sed 's/\\-/-/g' "$man_dir/pfclab-experiment.5" 2>/dev/null)
for k in $keys; do
	grep -qE "^\.BR? (.* )?\"?$k\"?( |$)|\\\\fB$k\\\\f|^\.SS $k$" <<<"$txt" || missing+=" $k"
done
if [ "$(wc -w <<<"$keys")" -ge 40 ] && [ -z "$missing" ]; then
	ok "pfclab-experiment.5 names the $(wc -w <<<"$keys") keys the experiment reader accepts"
else
	fail "pfclab-experiment.5 names every experiment key" "$(wc -w <<<"$keys") keys; missing:${missing:- none}"
fi

# Every page renders without a warning.
if command -v groff >/dev/null; then
	bad=
	for f in "$man_dir"/*.[1-8]; do
		out=$(groff -man -ww -z "$f" 2>&1)
		[ -z "$out" ] || bad+=" ${f##*/}: $(head -n 1 <<<"$out")"
	done
	if [ -z "$bad" ]; then ok "every page renders with groff -man -ww without a warning"
	else fail "every page renders with groff -man -ww" "$bad"; fi
else
	skip "every page renders with groff -man -ww" "groff not installed"
fi
if command -v man >/dev/null; then
	bad=
	for f in "$man_dir"/*.[1-8]; do
		out=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
		[ -z "$out" ] || bad+=" ${f##*/}: $(head -n 1 <<<"$out")"
	done
	if [ -z "$bad" ]; then ok "every page renders with man --warnings -l without a warning"
	else fail "every page renders with man --warnings -l" "$bad"; fi
else
	skip "every page renders with man --warnings -l" "man not installed"
fi
finish
