package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// refDocuments is what jsonDocuments finds, found the simple way: each
// value and each entry of its "items" read by encoding/json's decoder,
// lines counted from the input's start.
func refDocuments(data []byte) ([]document, error) {
	var docs []document
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		off := skipSpace(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return docs, nil
		} else if err != nil {
			return nil, jsonError(data, off, err)
		}
		d := document{json: raw, line: lineAt(data, off), lastLine: lineAt(data, dec.InputOffset())}
		var whole map[string]json.RawMessage
		var arr []json.RawMessage
		inner := json.NewDecoder(bytes.NewReader(raw))
		if json.Unmarshal(raw, &arr) == nil {
			inner.Token()
		} else if json.Unmarshal(raw, &whole) == nil && len(whole["items"]) > 0 && whole["items"][0] == '[' {
			inner.Token()
			for {
				k, _ := inner.Token()
				if k == "items" {
					break
				}
				var skip json.RawMessage
				inner.Decode(&skip)
			}
			inner.Token()
			var h struct{ Kind string }
			json.Unmarshal(raw, &h)
			if h.Kind == "List" || strings.HasSuffix(h.Kind, "List") {
				d.items = [][]byte{}
				whole["items"] = json.RawMessage("null")
				d.json, _ = json.Marshal(whole)
			}
		} else {
			docs = append(docs, d)
			continue
		}
		for inner.More() {
			ioff := skipSpace(raw, inner.InputOffset())
			var item json.RawMessage
			inner.Decode(&item)
			d.itemLines = append(d.itemLines, lineAt(data, off+ioff))
			if d.items != nil {
				d.items = append(d.items, item)
			}
		}
		docs = append(docs, d)
	}
}

// jsonText draws a JSON value of depth up to depth, with white space
// (newlines included) where JSON allows it, and strings holding quotes,
// brackets and escapes.
func jsonText(depth int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		ws := rapid.SampledFrom([]string{"", " ", "\n", "\n  ", "\t"})
		str := rapid.SampledFrom([]string{`"a"`, `"items"`, `"{["`, `"\"]}"`, `"\\"`, `"x\ny"`, `"\u005d"`, `""`})
		kinds := []string{"string", "number", "literal"}
		if depth > 0 {
			kinds = append(kinds, "object", "array")
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case "string":
			return str.Draw(t, "string")
		case "number":
			return rapid.SampledFrom([]string{"0", "-1.5e3", "12"}).Draw(t, "number")
		case "literal":
			return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "literal")
		case "array":
			elems := rapid.SliceOfN(jsonText(depth-1), 0, 4).Draw(t, "elems")
			for i := range elems {
				elems[i] = ws.Draw(t, "ws") + elems[i] + ws.Draw(t, "ws")
			}
			return "[" + strings.Join(elems, ",") + ws.Draw(t, "ws") + "]"
		default:
			keys := rapid.SliceOfN(str, 0, 4).Draw(t, "keys")
			var members []string
			seen := map[string]bool{}
			for _, k := range keys {
				if !seen[k] {
					seen[k] = true
					members = append(members, ws.Draw(t, "ws")+k+ws.Draw(t, "ws")+":"+ws.Draw(t, "ws")+jsonText(depth-1).Draw(t, "value"))
				}
			}
			return "{" + strings.Join(members, ",") + ws.Draw(t, "ws") + "}"
		}
	})
}

// TestJSONDocuments compares jsonDocuments with refDocuments on drawn
// input: Lists (kind List, a typed list, another kind) whose items are
// drawn JSON, several values in a row, and the same cut short or with a
// byte changed, which must give refDocuments' error.
func TestJSONDocuments(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for i := range rapid.IntRange(1, 3).Draw(t, "values") {
			b.WriteString(rapid.SampledFrom([]string{"", "\n", " \n\n"}).Draw(t, "before"))
			if rapid.Bool().Draw(t, "list") {
				items := rapid.SliceOfN(jsonText(3), 0, 5).Draw(t, fmt.Sprintf("items%d", i))
				kind := rapid.SampledFrom([]string{"List", "DeploymentList", "Pod"}).Draw(t, "listKind")
				fmt.Fprintf(&b, "{\"apiVersion\": \"v1\",\n \"items\": [\n%s],\n \"kind\": %q}", strings.Join(items, ",\n"), kind)
			} else {
				b.WriteString(jsonText(3).Draw(t, "value"))
			}
		}
		data := []byte(b.String())
		switch rapid.IntRange(0, 3).Draw(t, "damage") {
		case 1:
			data = data[:rapid.IntRange(0, len(data)).Draw(t, "cut")]
		case 2:
			data[rapid.IntRange(0, len(data)-1).Draw(t, "at")] = rapid.SampledFrom([]byte(`{}[]",:x 5`)).Draw(t, "byte")
		}
		want, wantErr := refDocuments(data)
		got, err := jsonDocuments(data)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%q: error %v, want %v", data, err, wantErr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d documents, want %d", data, len(got), len(want))
		}
		for i := range want {
			if !jsonEqual(got[i].json, want[i].json) || got[i].line != want[i].line || got[i].lastLine != want[i].lastLine {
				t.Fatalf("%q: document %d: %s lines %d-%d, want %s lines %d-%d", data, i, got[i].json, got[i].line, got[i].lastLine, want[i].json, want[i].line, want[i].lastLine)
			}
			if diff := cmp.Diff(want[i].itemLines, got[i].itemLines); diff != "" {
				t.Fatalf("%q: document %d: item lines (-want +got)\n%s", data, i, diff)
			}
			if (got[i].items == nil) != (want[i].items == nil) || len(got[i].items) != len(want[i].items) {
				t.Fatalf("%q: document %d: %d items (nil %v), want %d (nil %v)", data, i, len(got[i].items), got[i].items == nil, len(want[i].items), want[i].items == nil)
			}
			for k := range want[i].items {
				if !bytes.Equal(got[i].items[k], want[i].items[k]) {
					t.Fatalf("%q: document %d: item %d %s, want %s", data, i, k, got[i].items[k], want[i].items[k])
				}
			}
		}
	})
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var va, vb any
	for _, v := range []struct {
		data []byte
		to   *any
	}{{a, &va}, {b, &vb}} {
		dec := json.NewDecoder(bytes.NewReader(v.data))
		dec.UseNumber()
		if dec.Decode(v.to) != nil {
			return false
		}
	}
	return cmp.Equal(va, vb)
}

// TestReadHeader compares readHeader with json.Unmarshal on drawn
// objects whose keys are a header's, in other cases, repeated, and
// others, with values of every type (valid JSON: readHeader is given nothing else).
func TestReadHeader(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.SampledFrom([]string{`"apiVersion"`, `"APIVERSION"`, `"kind"`, `"Kind"`, `"metadata"`, `"metaData"`, `"items"`, `"spec"`, `"k\u0069nd"`, `"kınd"`, `"ſpec"`})
		value := rapid.OneOf(jsonText(2), rapid.SampledFrom([]string{`"v1"`, `"Pod"`, `null`, `[]`,
			`{"name": "a", "namespace": "b"}`, `{"Name": 5}`, `{"namespace": "c", "labels": {"name": "d"}}`, `{"NAME": "e", "name": "f"}`,
			`{"name": null}`, `{"name": "g\"h"}`, `{"name": "é"}`, `{"nąme": "i"}`, `{"name": "j", "namespace": []}`}))
		n := rapid.IntRange(0, 5).Draw(t, "members")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = key.Draw(t, "key") + ": " + value.Draw(t, "value")
		}
		raw := []byte("{" + strings.Join(parts, ", ") + "}")
		if rapid.IntRange(0, 9).Draw(t, "array") == 0 {
			raw = []byte("[" + string(raw) + "]")
		}
		var want, got header
		wantErr := json.Unmarshal(raw, &want)
		err := readHeader(raw, &got)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: error %v, want %v", raw, err, wantErr)
		}
		if wantErr == nil && !cmp.Equal(got, want) {
			t.Fatalf("%s: (-want +got)\n%s", raw, cmp.Diff(want, got))
		}
	})
}
