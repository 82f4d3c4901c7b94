package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/deploymath/deploymath/sim/internal/inputlimit"
	"github.com/deploymath/deploymath/sim/internal/yamlline"
	"github.com/deploymath/deploymath/sim/snapshot"
	"sigs.k8s.io/yaml"
)

// readInput reads the file deploysim is given, a scenario or Kubernetes
// objects (manifests, cluster state), and refuses it before it is parsed
// when it is larger than the limit of its kind, as read or with its YAML
// aliases expanded (inputlimit.Scenario, inputlimit.State). Its kind is
// told by its first document (see isManifest).
func readInput(file string) (data []byte, manifest bool, err error) {
	data, err = inputlimit.ReadFile(file, inputlimit.State) // the larger limit
	var le *inputlimit.Error
	if errors.As(err, &le) {
		if text, err := yamlline.FromUTF16(head(file)); err != nil || !isManifest(text) {
			le.Kind = inputlimit.Scenario
		}
		return nil, false, le
	}
	if err != nil {
		return nil, false, err
	}
	// read as kubectl reads a file: UTF-16 with a byte order mark too
	// (what PowerShell's > writes)
	text, err := yamlline.FromUTF16(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", file, err)
	}
	manifest = isManifest(text)
	kind := inputlimit.Scenario
	if manifest {
		kind = inputlimit.State
	}
	if err := inputlimit.Check(data, file, kind); err != nil {
		return nil, manifest, err
	}
	return data, manifest, nil
}

// head is the first 64 KiB of file (nil when it cannot be read).
func head(file string) []byte {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	return b
}

// isManifest reports whether data holds Kubernetes objects (a manifest, a
// List, kubectl get -o yaml|json output) rather than a scenario: its first
// document has apiVersion or kind at its top level (a scenario has
// neither; a List as kubectl prints it has kind at its end), or is a
// sequence; or whether it is kubectl's output without whole objects
// (kubectl describe, kubectl get's table, a status: block:
// snapshot.KubectlText), which the reader of objects refuses saying what
// it is and what to run instead, where the reader of scenarios could only
// name a field it does not know. It reads the text, without decoding the
// document, so that any size costs little: the top-level keys of a block
// mapping are the lines that start at column 0, and those of JSON are
// read token by token. Other flow documents are decoded when they are
// small enough to be a scenario.
func isManifest(data []byte) bool {
	return hasObjectKeys(data) || snapshot.KubectlText(data)
}

// hasObjectKeys is isManifest for objects.
func hasObjectKeys(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	started := false
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimRight(line, " \t\r")
		t := bytes.TrimLeft(line, " \t")
		switch {
		case len(t) == 0 || t[0] == '#' || t[0] == '%' && !started:
			continue
		case bytes.Equal(line, []byte("---")) || bytes.HasPrefix(line, []byte("--- ")):
			if started {
				return false
			}
			if rest := bytes.TrimSpace(line[3:]); len(rest) > 0 && rest[0] != '#' {
				return flowManifest(append(rest, data...))
			}
			continue
		case bytes.Equal(line, []byte("...")):
			if started {
				return false
			}
			continue
		}
		if !started {
			started = true
			switch t[0] {
			case '{', '[':
				return flowManifest(append(bytes.Clone(t), data...))
			case '-':
				return true // a sequence: objects, as a List holds them
			}
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue
		}
		if key, _, ok := bytes.Cut(line, []byte(":")); ok && objectKey(bytes.Trim(key, `"' `)) {
			return true
		}
	}
	return false
}

func objectKey(k []byte) bool { return string(k) == "apiVersion" || string(k) == "kind" }

// flowManifest is isManifest of a document in flow style (JSON, or YAML
// such as {apiVersion: v1, ...}).
func flowManifest(doc []byte) bool {
	if doc[0] == '[' {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for {
			k, err := dec.Token()
			if err != nil {
				break // not JSON
			}
			if k == json.Delim('}') {
				return false // an object without either
			}
			if s, ok := k.(string); ok && objectKey([]byte(s)) {
				return true
			}
			if skipValue(dec) != nil {
				break
			}
		}
	}
	// Not JSON: YAML in flow style, decoded if it is no larger than a
	// scenario may be (else it is taken for objects, whose limit is
	// larger, and the reader of objects words its errors).
	if len(doc) > inputlimit.ScenarioMax {
		return true
	}
	var top map[string]any
	if err := yaml.Unmarshal(doc, &top); err != nil {
		return false
	}
	_, a := top["apiVersion"]
	_, k := top["kind"]
	return a || k
}

// skipValue skips the next JSON value of dec, token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
