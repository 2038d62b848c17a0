# samples-keyed.jq: a monitor record's samples.jsonl with each sample's values and rates
# as objects keyed by column name, as records of format pfclab-monitor-1 wrote them:
#   jq -c -n -f samples-keyed.jq DIR/samples.jsonl
# Format pfclab-monitor-2 gives them as arrays in the order of the "columns" line before
# them (names, kinds); rates are kept for counters only. "columns" lines are left out,
# and every other line (events, format-1 samples) passes as it is.
foreach inputs as $l (null;
	if $l.type == "columns" then $l else . end;
	if $l.type == "columns" then empty
	elif $l.type == "sample" and ($l.values | type) == "array" then
		. as $c
		| $l
		| .values = ([$c.names, $l.values] | transpose
			     | map({key: .[0], value: .[1]}) | from_entries)
		| .rates = ([$c.names, $c.kinds, ($l.rates // [])] | transpose
			    | map(select(.[1] == "counter") | {key: .[0], value: .[2]})
			    | from_entries)
	else $l end)
