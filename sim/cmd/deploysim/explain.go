package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/deploymath/deploymath/sim/diagnose"
	"github.com/deploymath/deploymath/sim/snapshot"
)

// Exit statuses of deploysim explain, like kubectl rollout status's: 0
// when every Deployment is complete (or, without -require-complete, has
// not exceeded its progress deadline), 1 when one has exceeded its
// progress deadline or the snapshot cannot be read (kubectl exits 1 on
// both), 2 for a usage error, 3 with -require-complete when one is not
// complete.
const (
	exitDeadline   = 1
	exitUsage      = 2
	exitIncomplete = 3
)

const explainUsage = `usage: deploysim explain [-format text|json] [-n NAMESPACE] [-now RFC3339] [-require-complete] FILE|-

Explains every Deployment of a cluster snapshot: the output of
  kubectl get deploy,rs,pods -o yaml > state.yaml    (or -o json, -A for all namespaces)
or several such documents, or bare manifests; "-" reads standard input.
For each Deployment: what kubectl rollout status says, its ReplicaSets,
what the Deployment controller does at its next sync and why, and why
the rollout does not move.

Exit status: 0 when no Deployment has exceeded its progress deadline
(with -require-complete: when every one is complete), 1 when one has
exceeded it or the snapshot cannot be read, 2 for a usage error, 3 with
-require-complete when one is not complete.

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
	if len(files) != 1 {
		return usage("want one snapshot file (or - for standard input), got %d", len(files))
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
		return 1
	}
	rep := diagnose.Explain(snap, o)
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
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", b)
	}
	code := 0
	for _, d := range rep.Deployments {
		switch {
		case d.Status.DeadlineExceeded:
			fmt.Fprintf(stderr, "error: deployment %q (namespace %s) exceeded its progress deadline\n", d.Name, d.Namespace)
			code = exitDeadline
		case *requireComplete && !d.Status.Complete && code == 0:
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
