package rollout

// Plan computes what one sync of upstream's Deployment controller does for
// the snapshot, with the default [Options] (exact upstream behaviour).
func Plan(s Snapshot) (*Result, error) { return PlanWith(s, Options{}) }

// PlanWith is [Plan] with options.
func PlanWith(s Snapshot, o Options) (*Result, error) {
	return &Result{}, nil // TODO(lead): being implemented
}
