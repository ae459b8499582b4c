#!/usr/bin/env bash
# bench-pairs.sh [--pairs N] [--benchtime T] [--cpu LIST] [--same FILE]...
#                BASE NEW PKG BENCH
#
# Compares two builds of one package's benchmarks on a noisy machine: it
# builds PKG's test binary at the git revisions BASE and NEW ("." is the
# working tree, uncommitted changes included), then runs BENCH (a -bench
# pattern) with each in turn, N times (default 8), so that both builds see
# the same minutes of the host's load. It prints every run, prefixed with
# the build's name, then the median of ns/op, of each timing or rate
# metric (p50-µs, p99-µs, …/s), of B/op and of allocs/op per benchmark and
# build. --same FILE builds BASE with NEW's version of FILE (a benchmark the
# change added, say). A --benchtime or --cpu go test would refuse is refused
# before anything is built.
#
#   scripts/bench-pairs.sh HEAD~3 . . 'Admit20k(Varied)?$'
#   scripts/bench-pairs.sh --cpu 1 --benchtime 3s main . ./gate '^BenchmarkGate50$'
#   scripts/bench-pairs.sh --same bench_test.go 299a73e 7990c27 . 'Admit20k(Varied)?$'
#
# The README's and docs/design.md's before/after figures come from this.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

pairs=8
benchtime=2000x
cpu=
same=()
while [[ $# -gt 0 ]]; do
	if [[ $1 == --* && $1 != --help && $# -lt 2 ]]; then
		echo "bench-pairs.sh: $1 needs a value" >&2
		exit 2
	fi
	case $1 in
	--same) same+=("$2"); shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--benchtime) benchtime=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
	--*) echo "bench-pairs.sh: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [[ $# -ne 4 ]]; then
	echo "usage: bench-pairs.sh [--pairs N] [--benchtime T] [--cpu LIST] [--same FILE]... BASE NEW PKG BENCH" >&2
	exit 2
fi
base=$1 new=$2 pkg=$3 bench=$4
if [[ $base == . && ${#same[@]} -gt 0 ]]; then
	echo "bench-pairs.sh: --same needs BASE to be a revision, not the working tree" >&2
	exit 2
fi
if ! [[ $pairs =~ ^[1-9][0-9]*$ ]]; then
	echo "bench-pairs.sh: --pairs $pairs: want a positive number" >&2
	exit 2
fi
if ! [[ $benchtime =~ ^([1-9][0-9]*x|[0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))$ ]]; then
	echo "bench-pairs.sh: --benchtime $benchtime: want a count (2000x) or a duration (1s, 500ms)" >&2
	exit 2
fi
if [[ -n $cpu ]] && ! [[ $cpu =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then
	echo "bench-pairs.sh: --cpu $cpu: want a list of positive numbers (1 or 1,2)" >&2
	exit 2
fi

tmp=$(mktemp -d)
cleanup() {
	for name in base new; do
		if [[ -d $tmp/$name ]]; then git -C "$repo" worktree remove --force "$tmp/$name" >/dev/null 2>&1 || true; fi
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# build NAME REV: the test binary of PKG at REV, and the directory to run
# it in (its package's, for testdata).
build() {
	local name=$1 rev=$2 dir
	if [[ $rev == . ]]; then
		dir=$repo
	else
		dir=$tmp/$name
		git -C "$repo" worktree add --detach --quiet "$dir" "$rev"
	fi
	if [[ $name == base ]]; then
		for f in "${same[@]}"; do
			if [[ $new == . ]]; then cp "$repo/$f" "$dir/$f"; else git -C "$repo" show "$new:$f" >"$dir/$f"; fi
		done
	fi
	(cd "$dir" && go test -c -o "$tmp/$name.test" "$pkg")
	echo "$dir/$pkg" >"$tmp/$name.dir"
}
build base "$base"
build new "$new"

args=(-test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" -test.count 1)
if [[ -n $cpu ]]; then args+=(-test.cpu "$cpu"); fi
echo "# $pairs pairs: base $base, new $new; $pkg -bench '$bench' -benchtime $benchtime${cpu:+ -cpu $cpu}; load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
for ((i = 1; i <= pairs; i++)); do
	for name in base new; do
		if ! (cd "$(cat "$tmp/$name.dir")" && "$tmp/$name.test" "${args[@]}") >"$tmp/out" 2>&1; then
			echo "bench-pairs.sh: the $name build ($([[ $name == base ]] && echo "$base" || echo "$new")) failed:" >&2
			cat "$tmp/out" >&2
			exit 1
		fi
		if ! grep -q '^Benchmark' "$tmp/out"; then
			echo "bench-pairs.sh: the $name build ran no benchmark matching '$bench'" >&2
			exit 1
		fi
		grep '^Benchmark' "$tmp/out" | sed "s/^/$name /" | tee -a "$tmp/runs"
	done
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"

# Medians: for each benchmark, build and unit, the middle of the sorted
# values (the mean of the two middle ones for an even count).
echo "# medians"
awk '{
	for (i = 4; i <= NF; i++) if ($i ~ /(ns\/op|-µs|\/s|B\/op|allocs\/op)$/) print $2, $1, $i, $(i-1)
}' "$tmp/runs" | sort -k1,1 -k2,2 -k3,3 -k4,4g | awk '
	function flush() {
		if (n == 0) return
		m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%-40s %-4s %-10s %12.1f  (n=%d, %g–%g)\n", key_b, key_n, key_u, m, n, v[1], v[n]
		n = 0
	}
	{
		if ($1 != key_b || $2 != key_n || $3 != key_u) { flush(); key_b = $1; key_n = $2; key_u = $3 }
		v[++n] = $4
	}
	END { flush() }'
