package main

// The exit statuses of every deploysim command (runs, sweeps, explain,
// merge, history, undo), after kubectl's: a script can tell its own
// mistake (2) from a rollout that failed (1) and from one still under
// way (3). README.md has them as a table, which TestExitCodeTable
// compares with these.
const (
	// exitOK: the command did what it was asked, and no rollout failed
	// (with -require-complete: every rollout is complete).
	exitOK = 0
	// exitFailed: a rollout failed: a Deployment ends (explain: is)
	// ProgressDeadlineExceeded, or otherwise than the scenario's expect:
	// declares; a when: step never ran; with -check, an invariant broke.
	exitFailed = 1
	// exitUsage: bad usage or input: an unknown command or flag, a file
	// that cannot be read or does not validate, a scenario the simulator
	// refuses, a request kubectl would refuse (an undo to a revision that
	// does not exist), or nothing that matches what was asked.
	exitUsage = 2
	// exitIncomplete: with -require-complete, a rollout is not complete
	// (and none failed).
	exitIncomplete = 3
)

// worse returns the exit status that wins when a command meets both: bad
// input over a failed rollout, a failed rollout over an incomplete one.
func worse(a, b int) int {
	rank := func(c int) int {
		switch c {
		case exitUsage:
			return 3
		case exitFailed:
			return 2
		case exitIncomplete:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}
