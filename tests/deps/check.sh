#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh: lists every #include "..." between components that tests/deps/allowed.txt
# does not allow, one line each (FILE:LINE: COMPONENT may not include PATH), and every
# include cycle between sibling folders (monitor/sources and monitor/frames, traffic and
# lab: two folders of one parent that include each other, directly or through others of
# their siblings), one line per folder of the cycle (FILE:LINE: include cycle between
# sibling folders: A includes B, which includes A back); exits 1 when there is any, 0
# when the tree keeps to the table and has no such cycle.
#   tests/deps/check.sh [ROOT]      (ROOT defaults to the repository)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$here/../.." && pwd)}
table=${DEPS_TABLE:-$here/allowed.txt}
cd "$root" || exit 2

declare -A allow
keys=()
while read -r comp rest; do
	case $comp in ''|'#'*) continue ;; esac
	allow[$comp]=" $rest "
	keys+=("$comp")
done <"$table"

row_of() { # $1 = source path -> REPLY, the longest table key that is it or a folder of it
	local k best=
	for k in "${keys[@]}"; do
		if [[ $1 == "$k" || $1 == "$k"/* ]] && [ ${#k} -gt ${#best} ]; then best=$k; fi
	done
	REPLY=$best
}

allowed() { # $1 = row, $2 = target path: is it one of the row's entries or below one?
	local e
	for e in ${allow[$1]}; do
		[[ $2 == "$e" || $2 == "$e"/* ]] && return 0
	done
	return 1
}

normalize() { # $1 = a relative path with . and .. parts -> REPLY, the plain path
	local part out=()
	IFS=/ read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		case $part in
		''|.) ;;
		..) [ ${#out[@]} -gt 0 ] && unset 'out[${#out[@]}-1]' ;;
		*) out+=("$part") ;;
		esac
	done
	local IFS=/
	REPLY="${out[*]}"
}

# $1 = including file, $2 = included path -> REPLY, "A B": the two sibling folders (one
# parent) the include goes between, or "" when it stays in one folder, goes up or down
# into the folder's own subfolders, or starts at a top-level file (pfclab.c).
sibling_edge() {
	local a=${1%/*} b=${2%/*} i=0 p= A B
	REPLY=
	[ "$a" = "$1" ] || [ "$b" = "$2" ] && return
	IFS=/ read -ra A <<<"$a"
	IFS=/ read -ra B <<<"$b"
	while [ $i -lt ${#A[@]} ] && [ $i -lt ${#B[@]} ] && [ "${A[i]}" = "${B[i]}" ]; do
		p+=${A[i]}/
		i=$((i + 1))
	done
	[ $i -lt ${#A[@]} ] && [ $i -lt ${#B[@]} ] && REPLY="$p${A[i]} $p${B[i]}"
}

edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
bad=0
while IFS= read -r src; do
	from=${src%%/*}
	dir=${src%/*}
	[ "$dir" = "$src" ] && dir=.
	row_of "$src"
	row=$REPLY
	[ -n "$row" ] || { echo "$src: component '$from' is not in $table"; bad=1; continue; }
	while IFS=: read -r line inc; do
		if [ -e "$dir/$inc" ]; then
			normalize "$dir/$inc"
		elif [ -e "$inc" ]; then
			normalize "$inc"
		else
			REPLY=gen/$inc # generated (build/gen) or missing: the compiler says which
		fi
		target=$REPLY
		to=${target%%/*}
		if [ "$to" != gen ]; then
			sibling_edge "$src" "$target"
			[ -n "$REPLY" ] && echo "$REPLY $src:$line $target" >>"$edges"
		fi
		[ "$to" = "$from" ] && [ "$to" != pfclab.c ] && continue
		if ! allowed "$row" "$target"; then
			echo "$src:$line: $row may not include $target (allowed: ${allow[$row]# })"
			bad=1
		elif [ "$to" != "$from" ] && [[ $target != *.h ]]; then
			echo "$src:$line: $from includes $target: only headers cross components"
			bad=1
		fi
	done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print FNR ":" s }' "$src")
done < <(find pfclab.c lib traffic monitor lab scripts -name '*.[ch]' -not -path '*/fuzz/*' 2>/dev/null | sort)

# A cycle: an edge A -> B where B reaches A back (the closure over every sibling edge);
# each folder of a cycle is named once, at its first include towards the next.
awk '
	!(($1 SUBSEP $2) in first) { first[$1, $2] = $3 " includes " $4; reach[$1, $2] = 1;
		nodes[$1]; nodes[$2]; order[++n] = $1 SUBSEP $2 }
	END {
		for (k in nodes) for (i in nodes) if ((i, k) in reach)
			for (j in nodes) if ((k, j) in reach) reach[i, j] = 1
		for (e = 1; e <= n; e++) {
			split(order[e], ab, SUBSEP)
			if (!((ab[2], ab[1]) in reach) || (ab[1] in said)) continue
			said[ab[1]]
			split(first[order[e]], w, " ")
			printf "%s: include cycle between sibling folders: %s includes %s (%s), which includes %s back\n",
				w[1], ab[1], ab[2], w[3], ab[1]
		}
		exit n && length(said) ? 1 : 0
	}' "$edges" || bad=1
exit $bad
