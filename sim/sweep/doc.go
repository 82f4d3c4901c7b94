// Package sweep runs a simulator scenario (package sim) over many seeds
// and combinations of swept values, and condenses the runs into a table:
// what-if studies such as "would maxSurge 1 have been safer?".
//
// [Rows] runs a scenario for every combination of swept values (the
// strategy's fenceposts and type, replicas, minReadySeconds, the progress
// deadline, the controller latency, pod start-up and readiness delays:
// [Parse]) and every seed, and condenses each combination's runs into a
// [Row] — means, the median time to complete and the worst peak and
// minimum (labelled so in the table that [Describe] prints; [SVG] draws
// them); with no parameters it runs the scenario as written over the
// seeds. Each combination is a [sim.Scenario.Variant] of the scenario.
// [Run] runs the same sweep on [Config].Parallel goroutines (default
// GOMAXPROCS; the simulator itself has none: each run is a sequential
// simulation of its own) and returns a [Report]: the runs are placed by
// number, so the report, and the table, are the same byte for byte for
// every degree of parallelism.
//
// A sweep can also be split across machines. Its runs are numbered from
// 0 in table order (run k is combination k / S with the (k mod S)-th seed,
// S seeds), and [Shard] i/n holds the runs with k mod n = i. Each
// machine's report ([Report.JSON]) holds its runs; [Merge] checks that the
// reports are the n shards of one sweep (same scenario digest, sweep,
// seeds, time limit) and returns the report of the whole, identical to
// the one a single machine computes. deploysim exposes this as -parallel,
// -quiet (no progress line), -shard i/n with -format json, and the merge
// subcommand; examples/sweep-job.yaml runs the shards as a Kubernetes
// Indexed Job.
//
// So that a sweep's time stays bounded, [Rows] and [Run] refuse more than
// [MaxSeeds] seeds per combination or [MaxRuns] runs in all.
package sweep
