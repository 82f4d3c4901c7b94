package sim

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestDeploymentKeysIn: the Deployments of a namespace, found in the
// sorted keys by two binary searches, are those a scan finds, for
// namespaces that prefix one another ("ns-1", "ns-10", "ns-1-a").
func TestDeploymentKeysIn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nsGen := rapid.SampledFrom([]string{"a", "ns-1", "ns-10", "ns-1-a", "ns-1a", "ns", "n", "z"})
		s := &Sim{st: newStore()}
		for _, ns := range rapid.SliceOf(nsGen).Draw(t, "namespaces") {
			s.st.AddDeploymentKey(ns + "/" + rapid.StringMatching(`[a-z][a-z0-9-]{0,4}`).Draw(t, "name"))
		}
		ns := nsGen.Draw(t, "namespace")
		var want []string
		for _, k := range s.st.DeploymentKeys {
			if strings.HasPrefix(k, ns+"/") {
				want = append(want, k)
			}
		}
		if got := s.deploymentKeysIn(ns); !slices.Equal(got, want) {
			t.Fatalf("keys of %q: %q, want %q (all: %q)", ns, got, want, s.st.DeploymentKeys)
		}
	})
}
