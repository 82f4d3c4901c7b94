// Package fencepost resolves the two fenceposts of a RollingUpdate Deployment,
// maxSurge and maxUnavailable, exactly as the Kubernetes v1.37 Deployment
// controller does, and validates the strategy fields the planner relies on.
//
// Everything here is a pure function of its arguments: no I/O, no logging, no
// clock, and inputs are never modified.
//
// # Fenceposts
//
// A fencepost is an int-or-percent value ([intstr.IntOrString]). [Scaled]
// turns one into a pod count against a total: integers are taken as they are,
// percentages are scaled and rounded up or down. [ResolveFenceposts] resolves
// both values at once: maxSurge rounds up, maxUnavailable rounds down, and if
// both end up 0, maxUnavailable becomes 1 so that a rollout can always make
// progress.
//
// # Deployment helpers
//
// [MaxSurge], [MaxUnavailable] and [MinAvailable] apply [ResolveFenceposts] to
// a Deployment. They are 0 for a Recreate Deployment, never panic on missing
// fields, and follow upstream's arithmetic otherwise.
//
// # Validation
//
// [Validate] checks what the planner needs from spec.replicas and
// spec.strategy, with the messages of the apps/v1 API validation. Each problem
// is a [*field.Error] naming its field path; all of them are joined with
// [errors.Join] so a user sees every problem at once.
package fencepost
