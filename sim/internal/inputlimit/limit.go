// Package inputlimit bounds every input the simulator and deploysim read,
// before it is parsed: one size rule per kind of input ([State] for
// cluster state and manifests, [Scenario] for scenario files and
// overlays), checked on the bytes as read and on the size the input's
// YAML aliases expand it to ([Expanded]), with one error ([Error]) that
// names the input, the kind and the limit wherever the input is read.
package inputlimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Kind is a kind of input with its size limit.
type Kind struct {
	// What the input is, in errors: "cluster state or manifests".
	What string
	// Max is the limit in bytes, on the input as read and on its
	// expansion.
	Max int64
	// Name is the exported constant that holds Max, in errors:
	// "snapshot.MaxBytes".
	Name string
}

// The kinds of input.
var (
	// State is cluster state and manifests (kubectl get -o yaml|json
	// output, Lists, bare manifests): what deploysim explain, deploysim
	// DUMP and -from read.
	State = Kind{What: "cluster state or manifests", Max: StateMax, Name: "snapshot.MaxBytes"}
	// Scenario is a scenario file: what deploysim SCENARIO and -overlay
	// read.
	Scenario = Kind{What: "a scenario", Max: ScenarioMax, Name: "sim.MaxScenarioBytes"}
)

// The limits (see sim/snapshot.MaxBytes and sim.MaxScenarioBytes, which
// say why).
const (
	StateMax    = 64 << 20
	ScenarioMax = 2 << 20
)

// Error is an input beyond its kind's limit.
type Error struct {
	// Input names the input: a file name, "<stdin>".
	Input string
	Kind  Kind
	// Size is the input's size in bytes when known (a file), or 0 when
	// only "more than the limit" is known.
	Size int64
	// Expanded is the size its aliases expand it to, when that is what
	// is beyond the limit (0 otherwise).
	Expanded int64
}

// Error renders the error: "state.yaml: 41.7 MiB, above the limit of 64
// MiB for cluster state or manifests (snapshot.MaxBytes)"; without an
// Input, the same without "state.yaml: ".
func (e *Error) Error() string {
	n := max(e.Size, e.Expanded)
	maxText, size := mib(e.Kind.Max), mib(n)
	if size == maxText {
		// Just above the limit: in bytes, so that the numbers differ.
		maxText, size = fmt.Sprintf("%s (%d bytes)", maxText, e.Kind.Max), fmt.Sprintf("%d bytes", n)
	}
	limit := fmt.Sprintf("the limit of %s for %s (%s)", maxText, e.Kind.What, e.Kind.Name)
	var msg string
	switch {
	case e.Expanded > 0:
		msg = fmt.Sprintf("its YAML aliases expand it to %s, above %s: write the repeated parts out, or split the input", size, limit)
	case e.Size > 0:
		msg = fmt.Sprintf("%s, above %s", size, limit)
	default:
		msg = "larger than " + limit
	}
	if e.Input == "" {
		return msg
	}
	return e.Input + ": " + msg
}

// mib renders a size: "32 MiB", "41.7 MiB", "2.5 GiB".
func mib(n int64) string {
	switch {
	case n >= 1<<30:
		return trim(float64(n)/(1<<30)) + " GiB"
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return trim(float64(n)/(1<<20)) + " MiB"
}

func trim(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s
}

// Read reads r, which input names, up to k's limit: an input larger than
// that is an [*Error] once k.Max+1 bytes are read (the rest is not read).
// size is the input's whole size when known (a file's), else 0. The
// expansion is not checked: see [Check].
func Read(r io.Reader, input string, size int64, k Kind) ([]byte, error) {
	if size > k.Max {
		return nil, &Error{Input: input, Kind: k, Size: size}
	}
	// Read into a buffer of the size given, when one is: reading a large
	// file into a growing one copies it several times.
	buf := bytes.NewBuffer(make([]byte, 0, max(size, 0)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r, k.Max+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", input, err)
	}
	data := buf.Bytes()
	if int64(len(data)) > k.Max {
		return nil, &Error{Input: input, Kind: k, Size: size}
	}
	return data, nil
}

// ReadFile reads the file at path, refusing it, before reading, when its
// size is beyond k's limit, and otherwise as [Read] does.
func ReadFile(path string, k Kind) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return Read(f, path, size, k)
}

// Check checks input held in memory against k's limit: its size, and the
// size its YAML aliases expand it to ([Expanded]; JSON has none).
func Check(data []byte, input string, k Kind) error {
	if int64(len(data)) > k.Max {
		return &Error{Input: input, Kind: k, Size: int64(len(data))}
	}
	if n := Expanded(data); n > k.Max {
		return &Error{Input: input, Kind: k, Expanded: n}
	}
	return nil
}

// IsError reports whether err is, or wraps, an [*Error].
func IsError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
