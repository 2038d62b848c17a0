#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# install.sh: `make install` honours PREFIX and DESTDIR and installs what a user runs:
# the binary, the man pages of man/, the counter catalog, the lab scripts with the
# patch series, the virtual lab, the READMEs and the example experiments; no source file.
# The documents keep the checkout's layout, so the README that `pfclab run --help` names and
# the READMEs' own links exist installed as in a checkout. The installed pieces run from
# where they landed, and `make uninstall` takes every file away again.
# runs beside the virtual lab: it times nothing and starts no guest (tests/run.sh)
source "$(dirname "$0")/../lib.sh"
plan 14
stage=$(mktemp -d)
defer rm -rf "$stage"
pfx=$stage/opt/pfc
mk() { make -s -C "$PFCLAB_ROOT" -o "$PFCLAB" BIN="$PFCLAB" PREFIX=/opt/pfc DESTDIR="$stage" "$@"; }
if mk install >"$stage/log" 2>&1; then
	ok "make install PREFIX DESTDIR"
else
	fail "make install PREFIX DESTDIR" "$(tail -n 3 "$stage/log" | tr '\n' ' ')"
fi
if [ -x "$pfx/bin/pfclab" ] && "$pfx/bin/pfclab" --help | grep -q '^Commands:'; then
	ok "installed pfclab runs"
else
	fail "installed pfclab runs" "no working $pfx/bin/pfclab"
fi

# The pages of man/ (one per command of 'pfclab --help', pfclab.1, pfclab-experiment.5:
# man_pages.sh checks what they say) installed as they are, in man1 and man5; each renders.
cmds=$("$PFCLAB" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
missing=
for c in $cmds; do
	f=$pfx/share/man/man1/pfclab-$c.1
	if [ ! -f "$f" ] || ! grep -q "^pfclab-$c \\\\- " "$f"; then missing+=" $c"; fi
done
for f in "$PFCLAB_ROOT"/man/*.1 "$PFCLAB_ROOT"/man/*.5; do
	s=${f##*.}
	cmp -s "$f" "$pfx/share/man/man$s/${f##*/}" || missing+=" man$s/${f##*/}"
done
if [ -n "$cmds" ] && [ -z "$missing" ]; then
	ok "man/'s pages installed: one per command ($(wc -w <<<"$cmds")), pfclab.1, pfclab-experiment.5"
else
	fail "man/'s pages installed" "missing or different:$missing"
fi
if command -v man >/dev/null; then
	out=$(MANWIDTH=100 man --warnings -l "$pfx/share/man/man1/pfclab-monitor.1" 2>&1)
	out5=$(MANWIDTH=100 man --warnings -l "$pfx/share/man/man5/pfclab-experiment.5" 2>&1)
	if grep -q -- '--interval DUR' <<<"$out" && grep -q '^NAME' <<<"$out" &&
		grep -q '^EXAMPLES' <<<"$out5" && ! grep -qi 'warning' <<<"$out$out5"; then
		ok "man pfclab-monitor and pfclab-experiment render"
	else
		fail "man pfclab-monitor and pfclab-experiment render" "$(head -c 200 <<<"$out")"
	fi
else
	skip "man pfclab-monitor and pfclab-experiment render" "man not installed"
fi
out=$("$pfx/bin/pfclab" help monitor 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$out" = "$("$PFCLAB" monitor --help 2>&1)" ]; then ok "pfclab help CMD is CMD --help"
else fail "pfclab help CMD is CMD --help" "rc $rc"; fi

if cmp -s "$pfx/share/pfclab/catalog.tsv" "$PFCLAB_ROOT/monitor/catalog.tsv" &&
	"$pfx/bin/pfclab" monitor -i lo -c 1 -I 10ms --sources link \
		--catalog "$pfx/share/pfclab/catalog.tsv" >/dev/null 2>&1; then
	ok "counter catalog installed and usable with --catalog"
else
	fail "counter catalog installed and usable with --catalog"
fi
# the jq program that names a record's values, run on a record made here
rec=$stage/rec
if cmp -s "$pfx/share/pfclab/samples-keyed.jq" "$PFCLAB_ROOT/monitor/samples-keyed.jq" &&
	"$pfx/bin/pfclab" monitor -i lo -c 3 -I 10ms --sources link -q --record "$rec/r" \
		>/dev/null 2>&1 &&
	[ "$(jq -c -n -f "$pfx/share/pfclab/samples-keyed.jq" "$rec/r/samples.jsonl" |
		jq -s '[.[] | select(.type == "sample") | .values["link.rx_packets"] | numbers] |
		length')" = 3 ]; then
	ok "samples-keyed.jq installed and names a record's values"
else
	fail "samples-keyed.jq installed and names a record's values"
fi
bad=
for f in lab/vlab/vlab lab/qos lab/gpudirect lab/deps.sh; do
	[ -x "$pfx/share/pfclab/$f" ] || bad+=" $f"
done
"$pfx/share/pfclab/lab/vlab/vlab" --help >/dev/null 2>&1 || bad+=" vlab-help"
"$pfx/share/pfclab/lab/gpudirect" --help >/dev/null 2>&1 || bad+=" gpudirect-help"
"$pfx/share/pfclab/lab/qos" --help >/dev/null 2>&1 || bad+=" qos-help"
[ -r "$pfx/share/pfclab/patches/570.133.20/series" ] || bad+=" patches"
if [ -z "$bad" ]; then ok "lab scripts, virtual lab and patch series installed and run"
else fail "lab scripts, virtual lab and patch series installed and run" "$bad"; fi
if [ -f "$pfx/share/doc/pfclab/README.md" ]; then ok "READMEs installed"
else fail "READMEs installed"; fi
# the runner's README as `pfclab run --help` names it, in the checkout and installed; the
# READMEs' relative links (images, other READMEs) resolve in the installed tree
doc=$pfx/share/doc/pfclab
ref=$("$pfx/bin/pfclab" run --help | grep -o '[a-z/]*README\.md' | head -n 1)
bad=
for r in $(cd "$doc" && find . -name README.md); do
	for l in $(grep -o '](\([^)#: ]*\))' "$doc/$r" | sed 's/^](//; s/)$//'); do
		[ -e "$doc/$(dirname "$r")/$l" ] || bad+=" $r->$l"
	done
done
if [ -n "$ref" ] && [ -f "$PFCLAB_ROOT/$ref" ] && cmp -s "$doc/$ref" "$PFCLAB_ROOT/$ref" && [ -z "$bad" ]; then
	ok "run --help's '$ref' exists in the checkout and as $doc/$ref; README links resolve"
else
	fail "run --help's README and README links, installed" "ref '$ref'; missing:${bad:- none}"
fi
# the example experiments, as in the checkout (scripts/README.md's experiments/NAME.yaml)
bad=
n=0
for f in "$PFCLAB_ROOT"/scripts/experiments/*.yaml; do
	n=$((n + 1))
	cmp -s "$f" "$doc/scripts/experiments/${f##*/}" || bad+=" ${f##*/}"
done
if [ "$n" -gt 0 ] && [ -z "$bad" ]; then ok "the $n example experiments installed in $doc/scripts/experiments"
else fail "example experiments installed" "$n in the checkout; missing or different:${bad:- none}"; fi
src=$(find "$stage" -name '*.[cho]' -o -name '*.tsv.o' -o -name Makefile | sed "s|$stage||")
if [ -z "$src" ]; then ok "no source files installed"
else fail "no source files installed" "$(head -n 3 <<<"$src" | tr '\n' ' ')"; fi

if mk uninstall >"$stage/log" 2>&1 && [ -z "$(find "$stage/opt" -type f)" ]; then
	ok "make uninstall removes every installed file"
else
	fail "make uninstall removes every installed file" "$(find "$stage/opt" -type f | head -n 3 | tr '\n' ' ')"
fi

out=$("$PFCLAB" no-such-command 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "not a pfclab command"; then ok "unknown command: exit 2 with a hint"
else fail "unknown command: exit 2 with a hint" "rc=$rc $out"; fi
finish
