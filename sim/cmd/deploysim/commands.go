package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// commands are deploysim's commands, besides a run of a FILE.
var commands = []string{"explain", "history", "undo", "merge"}

// commandFor maps kubectl verbs a user may type to the command that
// answers them.
var commandFor = map[string]string{
	"status":   "explain",
	"describe": "explain",
	"rollback": "undo",
}

// unknownCommand returns the error for a first argument that names no
// file and looks like a command ("status", "explian"), or nil: a path
// (with a dot, a slash or a backslash), "-" or an existing file is a
// file, and its errors are the run's.
func unknownCommand(arg string) error {
	if arg == "" || arg == "-" || strings.ContainsAny(arg, "./\\") {
		return nil
	}
	if _, err := os.Stat(arg); err == nil {
		return nil
	}
	hint := ""
	if c := suggestCommand(arg); c != "" {
		hint = fmt.Sprintf("; did you mean %q?", c)
	}
	return fmt.Errorf("unknown command %q and no file of that name%s (commands: %s; otherwise deploysim runs a scenario, manifest or cluster-state FILE)",
		arg, hint, strings.Join(commands, ", "))
}

// suggestCommand returns the command arg most likely meant: the one a
// kubectl verb maps to, or a command at most two edits away (a
// transposition counts as one), "" when none is.
func suggestCommand(arg string) string {
	a := strings.ToLower(arg)
	if c, ok := commandFor[a]; ok {
		return c
	}
	best, bestD := "", 3
	for _, c := range commands {
		if d := editDistance(a, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// bytes each cost 1).
func editDistance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j]
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// kubernetesVersion is the Kubernetes release whose Deployment
// controller, API server rules and kubectl output deploysim models (the
// minor version of k8s.io/api in go.mod; TestVersion checks they agree).
const kubernetesVersion = "v1.37"

// printVersion prints deploysim -version: the module's version as the
// build recorded it ("(devel)" for a build inside the module, the tag for
// go install ...@version), the commit when the build knows it, the
// Kubernetes version it models and the k8s.io/api it was built with.
func printVersion(w io.Writer, info *debug.BuildInfo, ok bool) {
	version, module, api := "unknown", "github.com/deploymath/deploymath", ""
	var commit, modified string
	if ok {
		if info.Main.Path != "" {
			module = info.Main.Path
		}
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		for _, d := range info.Deps {
			if d.Path == "k8s.io/api" {
				api = d.Version
				if d.Replace != nil {
					api = d.Replace.Version
				}
			}
		}
	}
	fmt.Fprintf(w, "deploysim %s (%s", version, module)
	if commit != "" {
		fmt.Fprintf(w, ", commit %s%s", commit, modified)
	}
	fmt.Fprintf(w, ")\nmodels the Deployment controller of Kubernetes %s", kubernetesVersion)
	if api != "" {
		fmt.Fprintf(w, " (k8s.io/api %s)", api)
	}
	fmt.Fprintln(w)
}
