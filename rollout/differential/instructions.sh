#!/bin/bash
# Instructions per call of each building block and of upstream's function
# beside it (BenchmarkBlocksVsUpstream's pairs), as BENCHMARKS.md reports
# them: each sub-benchmark run under cachegrind for 1 and for N+1
# iterations, the difference divided by N. Instruction counts do not move
# with the machine's load, unlike ns/op.
#
#	cd rollout/differential && ./instructions.sh [block...]
#
# Needs valgrind. With no block named, every block of the benchmark.
# N iterations (50,000; 1,000 for the look-ups, whose upstream side takes
# up to a quarter of a millisecond a call).
set -euo pipefail
bin=$(mktemp -d)/blocks.test
go test -c -o "$bin" .
blocks=("$@")
if [ ${#blocks[@]} -eq 0 ]; then
	mapfile -t blocks < <(grep -o 'pair("[A-Za-z]*"' blocks_bench_test.go | cut -d'"' -f2)
fi
count() { # block rs side iterations
	GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$bin" -test.run '^$' -test.bench "^BenchmarkBlocksVsUpstream\$/^$1\$/^rs=$2\$/^$3\$" -test.benchtime "$4x" 2>&1 >/dev/null |
		grep -o 'I *refs: *[0-9,]*' | tr -dc 0-9
}
printf '| block | RS | ours | upstream | ratio |\n|---|---:|---:|---:|---:|\n'
for b in "${blocks[@]}"; do
	case $b in
	Find*) n=${N:-1000} ;;
	*) n=${N:-50000} ;;
	esac
	for rs in 1 5 10; do
		per=()
		for side in ours upstream; do
			a=$(count "$b" "$rs" "$side" 1)
			z=$(count "$b" "$rs" "$side" $((n + 1)))
			per+=($(((z - a) / n)))
		done
		awk -v b="$b" -v rs="$rs" -v o="${per[0]}" -v u="${per[1]}" 'BEGIN { printf "| %s | %d | %d | %d | %.2f |\n", b, rs, o, u, o / u }'
	done
done
