package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/deploymath/deploymath/sim/diagnose"
	"github.com/deploymath/deploymath/sim/snapshot"
)

const explainUsage = `usage: deploysim explain [-format text|json] [-n NAMESPACE] [-now RFC3339] [-require-complete] FILE|- [DEPLOYMENT]

Explains every Deployment of a cluster snapshot (or only the one named):
the output of
  kubectl get deploy,rs,pods -o yaml > state.yaml    (or -o json, -A for all namespaces)
or several such documents, or bare manifests; "-" reads standard input.
For each Deployment: what kubectl rollout status says, its ReplicaSets,
what the Deployment controller does at its next sync and why, and why
the rollout does not move.

Exit status, like kubectl rollout status: 0 when no Deployment has
exceeded its progress deadline (with -require-complete: when every one
is complete), 1 when one has exceeded it, 2 for bad usage or input (a
snapshot that cannot be read, or no Deployment that matches FILE, -n
and DEPLOYMENT), 3 with -require-complete when one is not complete.

Flags:
`

// runExplain is deploysim explain.
func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploysim explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text or json")
	namespace := fs.String("n", "", "keep only this `namespace` (default: every namespace in the snapshot; objects without one go to \"default\")")
	nowFlag := fs.String("now", "", "the instant of the diagnosis, RFC 3339 (default: the latest timestamp in the snapshot)")
	requireComplete := fs.Bool("require-complete", false, "exit 3 when a Deployment's rollout is not complete")
	fs.Usage = func() {
		fmt.Fprint(stderr, explainUsage)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "limits: snapshot %d MiB\n", snapshot.MaxBytes>>20)
	}
	files, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return exitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "deploysim explain: "+format+"\n", a...)
		fs.Usage()
		return exitUsage
	}
	if len(files) != 1 && len(files) != 2 {
		return usage("want one snapshot file (or - for standard input) and at most one Deployment name, got %d arguments", len(files))
	}
	if *format != "text" && *format != "json" {
		return usage("-format %q: want text or json", *format)
	}
	var o diagnose.Options
	if *nowFlag != "" {
		if o.Now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			return usage("-now %q: want an RFC 3339 time such as 2026-11-23T10:00:00Z", *nowFlag)
		}
	}
	opts := snapshot.Options{Namespace: *namespace}
	var snap *snapshot.Snapshot
	if files[0] == "-" {
		snap, err = snapshot.Read(stdin, "<stdin>", opts)
	} else {
		snap, err = snapshot.ReadFile(files[0], opts)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	source := files[0]
	if source == "-" {
		source = "<stdin>"
	}
	rep := diagnose.Explain(snap, o)
	if len(files) == 2 {
		all := rep.Deployments
		rep.Deployments = slices.DeleteFunc(slices.Clone(all), func(d diagnose.Deployment) bool { return d.Name != files[1] })
		if len(rep.Deployments) == 0 && len(all) > 0 {
			var names []string
			for _, d := range all {
				names = append(names, d.Namespace+"/"+d.Name)
			}
			fmt.Fprintf(stderr, "deploysim explain: no Deployment %q in %s%s; its Deployments: %s\n", files[1], source, inNamespace(*namespace), strings.Join(names, ", "))
			return exitUsage
		}
	}
	if len(rep.Deployments) == 0 {
		fmt.Fprintf(stderr, "deploysim explain: nothing to explain: no Deployment in %s%s%s\n", source, inNamespace(*namespace), leftOut(rep))
		return exitUsage
	}
	switch *format {
	case "text":
		fmt.Fprint(stdout, rep.Text())
		if files[0] != "-" && slices.ContainsFunc(rep.Deployments, func(d diagnose.Deployment) bool { return !d.Status.Complete }) {
			fmt.Fprintf(stdout, "\nwhat happens next: deploysim %s  (assumptions: -overlay FILE; apply a manifest now: -from %s NEW.yaml)\n", files[0], files[0])
		}
	case "json":
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s\n", b)
	}
	code := exitOK
	for _, d := range rep.Deployments {
		switch {
		case d.Status.DeadlineExceeded:
			fmt.Fprintf(stderr, "error: deployment %q (namespace %s) exceeded its progress deadline\n", d.Name, d.Namespace)
			code = exitFailed
		case *requireComplete && !d.Status.Complete && code == exitOK:
			code = exitIncomplete
		}
	}
	if *requireComplete && code == exitIncomplete {
		for _, d := range rep.Deployments {
			if !d.Status.Complete {
				fmt.Fprintf(stderr, "deployment %q (namespace %s) is not complete: %s\n", d.Name, d.Namespace, d.Status.Message)
			}
		}
	}
	return code
}

// inNamespace is " (namespace NS)" for -n NS, "" without.
func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return fmt.Sprintf(" (namespace %q)", ns)
}

// leftOut says what the snapshot held besides Deployments, for the error
// of a snapshot without any.
func leftOut(rep *diagnose.Report) string {
	var parts []string
	if rep.OtherNamespaces > 0 {
		parts = append(parts, fmt.Sprintf("%d objects in other namespaces left out", rep.OtherNamespaces))
	}
	if len(rep.Ignored) > 0 {
		var kinds []string
		for k, n := range rep.Ignored {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
		slices.Sort(kinds)
		parts = append(parts, "ignored: "+strings.Join(kinds, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
