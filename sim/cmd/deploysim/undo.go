package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/sim"
	"github.com/deploymath/deploymath/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

const undoUsage = `usage: deploysim undo [-n NAMESPACE] [--to-revision N] [flags] DUMP DEPLOYMENT

What kubectl rollout undo deployment/DEPLOYMENT [--to-revision N] does to
the cluster of a dump (kubectl get deploy,rs,pods -o yaml): the write it
sends (the JSON patch of spec.template and metadata.annotations, computed
from the ReplicaSets' revisions as kubectl v1.37 computes it) and what it
prints, then a run from the dump's state with that rollback at t=0, as
deploysim -from runs an apply. The run's flags (-until, -seed, -format,
-overlay, -now, -require-complete, -check, -svg, ...) work as for a run;
-sweep, -seeds and -from do not.

Exit status: as a run's (0; 1 when the rollout fails; 3 with
-require-complete when it is not complete), or 2 for bad usage or input,
including an undo kubectl refuses (a revision not in the history, no
previous revision, a paused Deployment).

Flags:
`

// undoRequest is deploysim undo: its arguments and, once the dump is
// read, the rollback kubectl would make.
type undoRequest struct {
	namespace  string
	toRevision int64
	dump, name string

	d     *appsv1.Deployment
	rb    revision.Rollback
	patch []byte // nil when kubectl skips the rollback
	// stderr takes kubectl's warnings
	stderr io.Writer
}

// flags adds undo's own flags to the run's.
func (u *undoRequest) flags(fs *flag.FlagSet) {
	fs.StringVar(&u.namespace, "n", "", "the `namespace` of the Deployment (default: the only one holding a Deployment of that name)")
	fs.Int64Var(&u.toRevision, "to-revision", 0, "the `revision` to roll back to (default 0: the previous one), as kubectl's --to-revision")
}

// args takes DUMP DEPLOYMENT and returns the files of the run: the dump.
func (u *undoRequest) args(files []string) ([]string, error) {
	if len(files) != 2 {
		return nil, fmt.Errorf("want a dump and a Deployment name, got %d arguments", len(files))
	}
	u.dump, u.name = files[0], files[1]
	return files[:1], nil
}

// scenario reads the dump, computes the rollback as kubectl does (an
// error kubectl would print refuses it), and returns the run: the dump's
// state (taken at now, zero for its latest time) with the undo at t=0,
// overlay laid over it.
func (u *undoRequest) scenario(overlay string, now time.Time) (*sim.Scenario, error) {
	snap, err := snapshot.ReadFile(u.dump, snapshot.Options{Namespace: u.namespace})
	if err != nil {
		return nil, err
	}
	if !isState(snap) {
		return nil, fmt.Errorf("%s: not cluster state (no ReplicaSet or pod): an undo needs the ReplicaSets of kubectl get deploy,rs,pods -o yaml", u.dump)
	}
	deps, err := selectDeployments(snap, u.dump, u.namespace, u.name)
	if err != nil {
		return nil, fmt.Errorf("deploysim undo: %w", err)
	}
	u.d = deps[0]
	if _, ok := u.d.Annotations[corev1.LastAppliedConfigAnnotation]; ok && u.stderr != nil {
		fmt.Fprintf(u.stderr, "Warning: resource deployments/%s was previously managed with 'kubectl apply'. Rolling back will not update the %s annotation, which may cause unexpected behavior on future 'kubectl apply' operations. Consider using 'kubectl apply' with your previous configuration file instead.\n",
			u.d.Name, corev1.LastAppliedConfigAnnotation)
	}
	if u.rb, err = revision.RollbackTarget(u.d, replicaSetsIn(snap, u.d.Namespace), u.toRevision); err != nil {
		return nil, fmt.Errorf("error: %w", err)
	}
	if !u.rb.AlreadyMatches {
		if u.patch, err = rollbackPatch(u.rb); err != nil {
			return nil, err
		}
	}
	st, err := stateOf(snap, now, u.dump)
	if err != nil {
		return nil, err
	}
	sc := sim.NewScenario(strings.TrimSuffix(filepath.Base(u.dump), filepath.Ext(u.dump)))
	sc.Description = fmt.Sprintf("%s on the cluster state of %s", u.command(), u.dump)
	sc.WithState(st)
	sc.WithSteps(sim.Step{Deployment: u.d.Name, Undo: &sim.Undo{ToRevision: u.toRevision}})
	if overlay == "" {
		return sc, nil
	}
	return withOverlay(sc, overlay)
}

// rollbackPatch is the body of kubectl's write: a JSON patch replacing
// spec.template (the target's, without the pod-template-hash label) and
// metadata.annotations, encoded as kubectl encodes it.
func rollbackPatch(rb revision.Rollback) ([]byte, error) {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	return json.Marshal([]op{
		{"replace", "/spec/template", rb.Template},
		{"replace", "/metadata/annotations", rb.Annotations},
	})
}

// command is the kubectl command line the undo stands for.
func (u *undoRequest) command() string {
	c := fmt.Sprintf("kubectl rollout undo deployment/%s -n %s", u.d.Name, u.d.Namespace)
	if u.toRevision != 0 {
		c += fmt.Sprintf(" --to-revision=%d", u.toRevision)
	}
	return c
}

// result is kubectl's line: "deployment.apps/NAME rolled back" or the
// skipped rollback.
func (u *undoRequest) result() string {
	return fmt.Sprintf("deployment.apps/%s %s", u.d.Name, u.rb.Message)
}

// text is what precedes the run's trace: the command, its write and what
// kubectl prints.
func (u *undoRequest) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", u.command())
	if u.patch == nil {
		fmt.Fprintf(&b, "writes nothing: the template already matches revision %d (ReplicaSet %s)\n", u.rb.Revision, u.rb.ReplicaSet)
	} else {
		fmt.Fprintf(&b, "writes revision %d (ReplicaSet %s) back:\n", u.rb.Revision, u.rb.ReplicaSet)
		fmt.Fprintf(&b, "PATCH /apis/apps/v1/namespaces/%s/deployments/%s\nContent-Type: application/json-patch+json\n\n%s\n", u.d.Namespace, u.d.Name, u.patch)
	}
	fmt.Fprintf(&b, "%s\n\n", u.result())
	return b.String()
}

// json wraps the run's JSON with the rollback.
func (u *undoRequest) json(run []byte) ([]byte, error) {
	return json.MarshalIndent(struct {
		Command    string          `json:"command"`
		Namespace  string          `json:"namespace"`
		Deployment string          `json:"deployment"`
		Revision   int64           `json:"revision"`
		ReplicaSet string          `json:"replicaSet"`
		Result     string          `json:"result"`
		Patch      json.RawMessage `json:"patch,omitempty"`
		Run        json.RawMessage `json:"run"`
	}{u.command(), u.d.Namespace, u.d.Name, u.rb.Revision, u.rb.ReplicaSet, u.result(), u.patch, run}, "", "  ")
}
