//go:build race

package rollout_test

// raceEnabled: the race detector changes escape analysis and allocation
// counts.
const raceEnabled = true
