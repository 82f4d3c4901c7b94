package rollout_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestREADMEBuildingBlocks: README.md's building-blocks snippet is
// Example_buildingBlocks line for line, and the comments it prints after
// each fmt.Println are the example's checked output.
func TestREADMEBuildingBlocks(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_blocks_test.go")
	if err != nil {
		t.Fatal(err)
	}
	snippet, ok := between(string(readme), "## Use the building blocks", "```go\n", "```")
	if !ok {
		t.Fatal("README.md: no go block under \"## Use the building blocks\"")
	}
	body, ok := between(string(src), "", "func Example_buildingBlocks() {\n", "\n}\n")
	if !ok {
		t.Fatal("example_blocks_test.go: no Example_buildingBlocks")
	}
	code, output, ok := strings.Cut(body, "\t// Output:\n")
	if !ok {
		t.Fatal("Example_buildingBlocks has no Output")
	}

	var readmeCode, readmeOutput []string
	for _, l := range strings.Split(strings.TrimSpace(snippet), "\n") {
		if c, comment, found := strings.Cut(l, " // "); found && strings.HasPrefix(l, "fmt.Println") {
			l = strings.TrimSpace(c)
			readmeOutput = append(readmeOutput, comment)
		}
		readmeCode = append(readmeCode, l)
	}
	var exampleCode, exampleOutput []string
	for _, l := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
		exampleCode = append(exampleCode, strings.TrimPrefix(l, "\t"))
	}
	for _, l := range strings.Split(strings.TrimRight(output, "\n"), "\n") {
		exampleOutput = append(exampleOutput, strings.TrimPrefix(l, "\t// "))
	}
	if diff := cmp.Diff(exampleCode, readmeCode); diff != "" {
		t.Errorf("README code differs from Example_buildingBlocks (-example +README):\n%s", diff)
	}
	if diff := cmp.Diff(exampleOutput, readmeOutput); diff != "" {
		t.Errorf("README's printed comments differ from the example's Output (-example +README):\n%s", diff)
	}
}

// between returns the text of s after the first after (searched from the
// heading) up to the next until.
func between(s, heading, after, until string) (string, bool) {
	i := strings.Index(s, heading)
	if i < 0 {
		return "", false
	}
	s = s[i:]
	j := strings.Index(s, after)
	if j < 0 {
		return "", false
	}
	s = s[j+len(after):]
	k := strings.Index(s, until)
	if k < 0 {
		return "", false
	}
	return s[:k], true
}
