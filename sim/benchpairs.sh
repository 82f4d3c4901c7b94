#!/bin/bash
# Wall-clock pairs of one sim benchmark: the working tree's test binary
# and a reference commit's, alternating one run at a time, with the time,
# user time and peak RSS of each run, as sim/BENCHMARKS.md reports them.
#
#	sim/benchpairs.sh REF [BENCHMARK] [PAIRS]
#
# e.g. sim/benchpairs.sh 78acede Rolling1kx1k 4. On the project's 2-core
# VM the large runs, which are bound by memory, change speed by up to
# 2.5× from one hour to the next (user time with them); so the script
# first times the reference's BenchmarkRolling150k (78acede: 2.2–2.7 s in
# a fast phase, 5–6.5 s in a slow one) to say which phase the pairs ran
# in, and BenchmarkMemoryLatency's dependent loads (16 MiB: 180-250 ns
# in the slow phase, 125-155 ns in a fast one, when 1kx1k took 22-32 s).
# Nothing else should run meanwhile.
set -euo pipefail
ref=${1:?usage: sim/benchpairs.sh REF [BENCHMARK] [PAIRS]}
bench=${2:-Rolling1kx1k}
pairs=${3:-4}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$dir/ref" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
git -C "$root" worktree add --quiet --detach "$dir/ref" "$ref"
(cd "$dir/ref" && go test -c -o "$dir/ref.test" ./sim)
(cd "$root" && go test -c -o "$dir/head.test" ./sim)
run() { # binary benchmark: prints "seconds user-seconds peak-MB"
	(cd "$root/sim" && /usr/bin/time -f '%U %M' "$dir/$1.test" -test.run '^$' -test.bench "^Benchmark$2\$" -test.benchtime 1x 2>&1) |
		awk '/ns\/op/ { for (i = 1; i < NF; i++) if ($(i+1) == "ns/op") s = $i / 1e9 }
		     /^[0-9.]+ [0-9]+$/ { u = $1; m = $2 / 1024 }
		     END { printf "%.1f s (user %.1f s, %.0f MB)", s, u, m }'
}
echo "phase: $ref's BenchmarkRolling150k $(run ref Rolling150k)"
echo "memory: $(cd "$root/sim" && "$dir/head.test" -test.run '^$' -test.bench '^BenchmarkMemoryLatency$' -test.benchtime 3x |
	awk '/ns\/load/ { for (i = 1; i < NF; i++) if ($(i+1) == "ns/load") printf "%s %s ns a load; ", $1, $i }')"
echo
echo "| pair | load | HEAD | $ref |"
echo "|---|---|---|---|"
for i in $(seq "$pairs"); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	if ((i % 2)); then
		h=$(run head "$bench")
		r=$(run ref "$bench")
	else
		r=$(run ref "$bench")
		h=$(run head "$bench")
	fi
	echo "| $i | $load | $h | $r |"
done
