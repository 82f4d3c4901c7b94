package sim

import (
	"fmt"
	"strings"
)

// Invariant is a property of the cluster that must hold throughout a run
// ([Options].Invariants), for property tests of your own controllers:
// Check reads the API server (every kind, pods and nodes included) and
// returns an error saying what is wrong when the property is broken.
//
// The run checks every invariant after each write of a hosted controller
// and at the end of every instant (after everything that happened at
// it). A broken invariant is a [Violation] in [Result].Violations (its
// Invariant is Name) each time it goes from holding to broken; the run
// goes on.
type Invariant struct {
	// Name names the invariant in violations ("canary: availability").
	Name string
	// Check returns nil when the property holds.
	Check func(r Reader) error
}

// maxUserViolations bounds the violations a run records of the
// invariants of Options.Invariants.
const maxUserViolations = 1000

// userChecks are the run's invariants and whether each was broken at the
// last check.
type userChecks struct {
	invs       []Invariant
	broken     []bool
	violations []Violation
	step       int // 1-based number of the last step run
}

// checkUser checks the run's invariants (see Invariant).
func (s *Sim) checkUser() {
	u := s.userInv
	if u == nil {
		return
	}
	r := s.APIReader()
	for i, inv := range u.invs {
		err := u.run(inv, r)
		if err == nil {
			u.broken[i] = false
			continue
		}
		if !u.broken[i] && len(u.violations) < maxUserViolations {
			u.violations = append(u.violations, Violation{At: s.now, Step: u.step, Invariant: inv.Name, Detail: err.Error()})
		}
		u.broken[i] = true
	}
}

// run checks one invariant; a panic of its Check is a violation.
func (u *userChecks) run(inv Invariant, r Reader) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the check panicked: %v", v)
		}
	}()
	return inv.Check(r)
}

// newUserChecks validates the invariants of Options.Invariants.
func newUserChecks(invs []Invariant) (*userChecks, error) {
	if len(invs) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	for i, inv := range invs {
		if inv.Name == "" || strings.TrimSpace(inv.Name) != inv.Name {
			return nil, fmt.Errorf("Options.Invariants[%d]: name %q: want a non-empty name", i, inv.Name)
		}
		if seen[inv.Name] {
			return nil, fmt.Errorf("Options.Invariants[%d]: name %q: given twice", i, inv.Name)
		}
		seen[inv.Name] = true
		if inv.Check == nil {
			return nil, fmt.Errorf("Options.Invariants[%d] (%s): Check must be set", i, inv.Name)
		}
	}
	return &userChecks{invs: invs, broken: make([]bool, len(invs))}, nil
}
