package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/deploymath/deploymath/revision"
	"github.com/deploymath/deploymath/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
)

const historyUsage = `usage: deploysim history [-n NAMESPACE] [--revision N] DUMP [DEPLOYMENT]

What kubectl rollout history deployment[/DEPLOYMENT] prints for the
Deployments of a cluster dump (kubectl get deploy,rs -o yaml, or the
dumps explain reads): each Deployment's REVISION / CHANGE-CAUSE table,
from the revision annotations of the ReplicaSets it controls, or with
--revision N that revision's pod template as kubectl describes it. Like
kubectl, it works in one namespace: -n, or the dump's only one (a
DEPLOYMENT found in one namespace only needs no -n).

Exit status: 0, or 2 for bad usage or input (a dump that cannot be read,
no Deployment that matches, a revision not in the history).

Flags:
`

// runHistory is deploysim history.
func runHistory(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploysim history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	namespace := fs.String("n", "", "the `namespace` (default: the dump's only namespace with Deployments, or the DEPLOYMENT's)")
	rev := fs.Int64("revision", 0, "show the pod template of this `revision`, as kubectl rollout history --revision does")
	fs.Usage = func() {
		fmt.Fprint(stderr, historyUsage)
		fs.PrintDefaults()
	}
	files, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(files) != 1 && len(files) != 2 {
		fmt.Fprintf(stderr, "deploysim history: want a dump and at most one Deployment name, got %d arguments\n", len(files))
		fs.Usage()
		return exitUsage
	}
	if *rev < 0 {
		fmt.Fprintf(stderr, "error: revision must be a positive integer: %d\n", *rev)
		return exitUsage
	}
	name := ""
	if len(files) == 2 {
		name = files[1]
	}
	snap, err := snapshot.ReadFile(files[0], snapshot.Options{Namespace: *namespace})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	deps, err := selectDeployments(snap, files[0], *namespace, name)
	if err != nil {
		fmt.Fprintf(stderr, "deploysim history: %v\n", err)
		return exitUsage
	}
	code := exitOK
	for _, d := range deps {
		out, err := historyOf(d, replicaSetsIn(snap, d.Namespace), *rev)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			code = exitUsage
			continue
		}
		fmt.Fprint(stdout, out)
	}
	return code
}

// historyOf is what kubectl rollout history deployment/NAME
// [--revision N] prints for d: "deployment.apps/NAME " and the table
// ([revision.DescribeHistory]), or "deployment.apps/NAME with revision #N"
// and that revision's pod template (the ReplicaSet's, pod-template-hash
// label included, with its change cause among the annotations, as
// kubectl shows it; of several ReplicaSets with that revision, the last
// in history order).
func historyOf(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, rev int64) (string, error) {
	entries, err := revision.History(d, rss)
	if err != nil {
		return "", err
	}
	if rev == 0 || len(entries) == 0 {
		head := ""
		if rev > 0 {
			head = fmt.Sprintf("with revision #%d", rev)
		}
		return fmt.Sprintf("deployment.apps/%s %s\n%s\n", d.Name, head, revision.DescribeHistory(entries)), nil
	}
	var rsName string
	for _, e := range entries {
		if e.Revision == rev {
			rsName = e.ReplicaSet
		}
	}
	i := slices.IndexFunc(rss, func(rs *appsv1.ReplicaSet) bool { return rs != nil && rs.Name == rsName })
	if rsName == "" || i < 0 {
		var revs []string
		for _, e := range entries {
			revs = append(revs, strconv.FormatInt(e.Revision, 10))
		}
		return "", fmt.Errorf("unable to find the specified revision (deployment.apps/%s has %s)", d.Name, strings.Join(slices.Compact(revs), ", "))
	}
	rs := rss[i]
	t := rs.Spec.Template.DeepCopy()
	if cause := rs.Annotations[revision.ChangeCauseAnnotation]; cause != "" {
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations[revision.ChangeCauseAnnotation] = cause
	}
	return fmt.Sprintf("deployment.apps/%s with revision #%d\n%s\n", d.Name, rev, describePodTemplate(t)), nil
}

// replicaSetsIn returns the ReplicaSets of s in namespace ns.
func replicaSetsIn(s *snapshot.Snapshot, ns string) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range s.ReplicaSets {
		if rs.Namespace == ns {
			out = append(out, rs)
		}
	}
	return out
}

// selectDeployments picks the Deployments a kubectl rollout command
// would act on in the dump file: in namespace ns (s was read with it) or,
// without one, in the dump's only namespace; name, when given, picks one
// (without ns, from whichever namespace holds it, if only one does).
func selectDeployments(s *snapshot.Snapshot, file, ns, name string) ([]*appsv1.Deployment, error) {
	in := ""
	if ns != "" {
		in = fmt.Sprintf(" in namespace %q", ns)
	}
	if len(s.Deployments) == 0 {
		return nil, fmt.Errorf("no Deployment in %s%s", file, in)
	}
	var namespaces, all []string
	for _, d := range s.Deployments {
		all = append(all, d.Namespace+"/"+d.Name)
		if !slices.Contains(namespaces, d.Namespace) {
			namespaces = append(namespaces, d.Namespace)
		}
	}
	if name == "" {
		if len(namespaces) > 1 {
			return nil, fmt.Errorf("%s holds Deployments in %d namespaces (%s): choose one with -n, as kubectl works in one namespace", file, len(namespaces), strings.Join(namespaces, ", "))
		}
		return s.Deployments, nil
	}
	var found []*appsv1.Deployment
	for _, d := range s.Deployments {
		if d.Name == name {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("deployments.apps %q not found in %s%s; its Deployments: %s", name, file, in, strings.Join(all, ", "))
	case 1:
		return found, nil
	}
	var nss []string
	for _, d := range found {
		nss = append(nss, d.Namespace)
	}
	return nil, fmt.Errorf("deployment %q is in %d namespaces of %s (%s): choose one with -n", name, len(found), file, strings.Join(nss, ", "))
}
