#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# install.sh: `make install` honours PREFIX and DESTDIR, and the installed binary runs.
source "$(dirname "$0")/../lib.sh"
plan 4
stage=$(mktemp -d)
defer rm -rf "$stage"
if make -s -C "$PFCLAB_ROOT" -o "$PFCLAB" BIN="$PFCLAB" install PREFIX=/opt/pfc \
	DESTDIR="$stage" >"$stage/log" 2>&1; then
	ok "make install PREFIX DESTDIR"
else
	fail "make install PREFIX DESTDIR" "$(tail -n 3 "$stage/log" | tr '\n' ' ')"
fi
if [ -x "$stage/opt/pfc/bin/pfclab" ] && "$stage/opt/pfc/bin/pfclab" --help | grep -q '^Commands:'; then
	ok "installed pfclab runs"
else
	fail "installed pfclab runs" "no working $stage/opt/pfc/bin/pfclab"
fi
if [ -x "$stage/opt/pfc/share/pfclab/lab/vlab/vlab" ]; then ok "lab scripts installed under PREFIX/share/pfclab"
else fail "lab scripts installed under PREFIX/share/pfclab"; fi
out=$("$PFCLAB" no-such-command 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "not a pfclab command"; then ok "unknown command: exit 2 with a hint"
else fail "unknown command: exit 2 with a hint" "rc=$rc $out"; fi
finish
