# SPDX-License-Identifier: GPL-2.0-or-later
# tmux.sh: a real terminal for the tests: a tmux server of the test's own (its own socket,
# no configuration file) holding one session of a given size, whose pane the test types
# into and reads. Source it after tests/lib.sh; the server and its socket go with the
# cleanups registered with defer.
#
#   tmux_up W H CMD         the server and a W x H session running CMD (one string, run by
#                           the shell); sets TMUX_NAME (the socket's and the session's name)
#   tmux_shell W H [VAR=VALUE]...
#                           tmux_up with a bare bash (no rc files) in an environment of
#                           PATH, TERM=screen-256color, LANG=C.UTF-8 and the VAR=VALUEs
#                           only; its prompt is 'PROMPT$ '
#   T ARGS...               tmux on the test's server
#   keys KEY...             send-keys to the pane (tmux's key names: Enter, Tab, ' ', q)
#   type_line TEXT          type TEXT, then Enter
#   screen                  the pane's text
#   screen_colours          the pane's text with its colour sequences
#   wait_for TEXT [TENTHS]  until a line of the screen matches TEXT (grep), at most TENTHS
#                           tenths of a second (100 unless given); 1 when it never does
#   cell ROW COL            word COL (1-based, after the label) of the first line whose
#                           first word is ROW
#   alternate_on            1 while the pane shows the alternate screen, else 0
#   resize W H              the window, and its pane, to W x H

TMUX_NAME=''

# tmux_up W H CMD: see the header.
tmux_up() {
	local sock
	TMUX_NAME=pfctmux$$
	tmux -L "$TMUX_NAME" -f /dev/null new-session -d -s "$TMUX_NAME" -x "$1" -y "$2" "$3" ||
		return 1
	# the server goes first, then its socket (kill-server leaves it)
	sock=$(T display -p '#{socket_path}')
	[ -n "$sock" ] && defer rm -f "$sock"
	defer tmux -L "$TMUX_NAME" kill-server
}

# tmux_shell W H [VAR=VALUE]...: see the header.
tmux_shell() {
	local w=$1 h=$2 extra=''
	shift 2
	[ $# -gt 0 ] && printf -v extra '%q ' "$@"
	tmux_up "$w" "$h" "env -i PATH=$(printf %q "$PATH") ${extra}TERM=screen-256color LANG=C.UTF-8 PS1='PROMPT\$ ' bash --norc --noprofile"
}

T() { tmux -L "$TMUX_NAME" "$@"; }
keys() { T send-keys -t "$TMUX_NAME" "$@"; }
type_line() { T send-keys -t "$TMUX_NAME" "$1" Enter; }
screen() { T capture-pane -p -t "$TMUX_NAME"; }
screen_colours() { T capture-pane -e -p -t "$TMUX_NAME"; }

# wait_for TEXT [TENTHS]: see the header.
wait_for() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		screen | grep -q -- "$1" && return 0
		sleep 0.1
	done
	return 1
}

cell() { screen | awk -v r="$1" -v c="$2" '$1 == r { print $(c + 1); exit }'; }
alternate_on() { T display -p -t "$TMUX_NAME" '#{alternate_on}'; }
resize() { T resize-window -t "$TMUX_NAME" -x "$1" -y "$2"; }
