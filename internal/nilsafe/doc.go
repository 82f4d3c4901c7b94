// Package nilsafe holds only a test: the library's promise that no
// exported function or method of fencepost, hashing, revision, rollout (and
// rollout/defaulting), restart and internal/apirules panics, whatever zero
// values and nils it is given (nil pointers, nil slices with nil elements,
// zero structs whose pointer fields are nil, nil interfaces and functions,
// nil receivers). The test also fails when an exported function or method
// has no call in it, so the list stays complete as the packages grow.
package nilsafe
