#!/usr/bin/env bash
# Times what a command-line user waits for on a large store: `memgate get`,
# `stats` and `search`, each a whole process (start, open, work, exit), as
# the median of RUNS runs (after one warm-up run). Targets (issue 8), on a
# 100,000-memory store: get and stats < 150 ms, search < 400 ms.
#
# It builds the binary, writes a deterministic memory set with
# scripts/genmem, imports it, and times the commands with hyperfine if it is
# installed (apt-get install hyperfine), else with a plain loop. Two shapes by
# default: 100,000 memories of 100 users (the common case: a search loads one
# user's 1,000), and of 1 user (a search loads all 100,000).
#
#   scripts/bench-cli.sh
#   N=20000 SHAPES="10" RUNS=5 scripts/bench-cli.sh
#   KEEP=1 scripts/bench-cli.sh      # reuse the stores of an earlier run
#   HYPERFINE=none scripts/bench-cli.sh  # time with the plain loop
#
# Stores and the binary go to $DIR (default ${TMPDIR:-/tmp}/memgate-bench-cli).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100000}
RUNS=${RUNS:-10}
SHAPES=${SHAPES:-"100 1"} # users per store
DIR=${DIR:-${TMPDIR:-/tmp}/memgate-bench-cli}
QUERY="quarterly report deadline for the Acme client"
mkdir -p "$DIR"

echo "building memgate…"
go build -o "$DIR/memgate" ./cmd/memgate
bin="$DIR/memgate"

# median_ms CMD...: runs CMD RUNS times after one warm-up, prints the median
# wall time in milliseconds.
median_ms() {
	"$@" >/dev/null
	local times=() start end
	for _ in $(seq "$RUNS"); do
		start=$(date +%s%N)
		"$@" >/dev/null
		end=$(date +%s%N)
		times+=($(((end - start) / 1000)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f\n", m / 1000}'
}

for users in $SHAPES; do
	db="$DIR/n$N-u$users.db"
	if [[ -z "${KEEP:-}" || ! -s "$db" ]]; then
		rm -f "$db" "$db-wal" "$db-shm"
		echo "generating $N memories of $users user(s)…"
		go run ./scripts/genmem -n "$N" -users "$users" >"$DIR/in.jsonl"
		"$bin" --db "$db" import "$DIR/in.jsonl"
		rm -f "$DIR/in.jsonl"
	fi
	per_user=$((N / users))
	# Memory i belongs to user<i mod users>; m<N/2> exists in every shape.
	labels=("get" "stats" "search ($per_user memories of the user)")
	cmds=("$bin --db $db get m$((N / 2))"
		"$bin --db $db stats"
		"$bin --db $db search --user user0 --query '$QUERY'")
	targets=(150 150 400)

	echo
	echo "== $N memories, $users user(s), $(du -h "$db" | cut -f1) store; median of $RUNS runs =="
	if command -v "${HYPERFINE:-hyperfine}" >/dev/null; then
		json="$DIR/hyperfine.json"
		"${HYPERFINE:-hyperfine}" -N --warmup 1 --runs "$RUNS" --export-json "$json" "${cmds[@]}" >/dev/null
		mapfile -t medians < <(grep -o '"median": [0-9.e+-]*' "$json" | awk '{printf "%.1f\n", $2 * 1000}')
		how="hyperfine"
	else
		medians=()
		for c in "${cmds[@]}"; do
			medians+=("$(median_ms bash -c "$c")")
		done
		how="loop (includes a bash start)"
	fi
	for i in "${!labels[@]}"; do
		verdict=$(awk -v m="${medians[$i]}" -v t="${targets[$i]}" 'BEGIN { print (m < t) ? "ok" : "MISSES" }')
		printf '  %-40s %8s ms   target < %s ms: %s\n' "${labels[$i]}" "${medians[$i]}" "${targets[$i]}" "$verdict"
	done
	if [[ -x /usr/bin/time ]]; then
		rss=$(/usr/bin/time -f '%M' bash -c "exec ${cmds[2]} >/dev/null" 2>&1 | tail -1)
		printf '  %-40s %8s MB   (timed with %s)\n' "search peak memory (RSS)" "$((rss / 1024))" "$how"
	fi
done
