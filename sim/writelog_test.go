package sim

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteLog: Options.Writes lists every accepted write in order,
// including the states no frame shows (the Progressing=NewReplicaSetCreated
// status written and overwritten at one instant), with strictly increasing
// resourceVersions; without the option nothing is recorded.
func TestWriteLog(t *testing.T) {
	sc, err := LoadScenario(filepath.Join(scenarioDir, "nginx-rolling-update.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{Writes: true})
	if err != nil {
		t.Fatal(err)
	}
	line := func(w Write) string {
		return fmt.Sprintf("%s %s %s %s %s replicas %d", offset(w.At), w.By, w.Verb, w.Kind, w.Name, w.Replicas)
	}
	want := []string{
		"t=0s user create Deployment nginx-deployment replicas 3",
		"t=0s deployment-controller create ReplicaSet nginx-deployment-54fd4d6d4c replicas 3",
		"t=0s deployment-controller status Deployment nginx-deployment replicas 3",
	}
	for i, w := range want {
		if got := line(res.Writes[i]); got != w {
			t.Errorf("write %d = %q, want %q", i, got, w)
		}
	}
	if c := res.Writes[2].Status.Conditions; len(c) != 1 || c[0] != "Progressing=True/NewReplicaSetCreated" {
		t.Errorf("first status write conditions %v, want the short-lived Progressing=True/NewReplicaSetCreated", c)
	}
	var created, scaledToZero bool
	last := int64(0)
	for i, w := range res.Writes {
		if w.Verb == "delete" {
			continue
		}
		rv, err := strconv.ParseInt(w.ResourceVersion, 10, 64)
		if err != nil || rv <= last {
			t.Fatalf("write %d (%s): resourceVersion %q after %d", i, line(w), w.ResourceVersion, last)
		}
		last = rv
		switch line(w) {
		case "t=30s deployment-controller create ReplicaSet nginx-deployment-76df5b8bb8 replicas 1":
			created = true
		}
		if w.Kind == "ReplicaSet" && w.Name == "nginx-deployment-54fd4d6d4c" && w.Verb == "update" && w.Replicas == 0 {
			scaledToZero = true
		}
	}
	if !created || !scaledToZero {
		t.Errorf("new ReplicaSet created at 30s with 1 replica: %v; old one scaled to 0: %v", created, scaledToZero)
	}
	if res, err := Run(sc, Options{}); err != nil || res.Writes != nil {
		t.Errorf("without Options.Writes: %d writes, err %v", len(res.Writes), err)
	}
}
