package snapshot

import (
	"testing"
)

func TestFieldPath(t *testing.T) {
	for msg, want := range map[string]string{
		`unknown field "spec.template.spec.containers[0].imagePolicy"`: "spec.template.spec.containers[0].imagePolicy",
		`spec.replicas: cannot unmarshal string into int32`:            "spec.replicas",
		`metadata.annotations.example.com/x: bad`:                      "metadata.annotations.example.com/x",
		`quantities must match the regular expression`:                 "",
		`invalid character 'x': oops`:                                  "",
	} {
		if got := fieldPath(msg); got != want {
			t.Errorf("fieldPath(%q) = %q, want %q", msg, got, want)
		}
	}
}
