#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh: lists every #include "..." between components that tests/deps/allowed.txt
# does not allow, one line each (FILE:LINE: COMPONENT may not include PATH), and
# exits 1 when there is any; 0 when the tree keeps to the table.
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
exit $bad
