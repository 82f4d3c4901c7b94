package restart

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ChecksumAlgorithm selects how config data is summarised. Both produce 16
// lower-case hex characters (the first 8 bytes of a SHA-256).
type ChecksumAlgorithm int

const (
	// ChecksumFramed (the default) hashes every key and value with a length
	// prefix, sorted by key, with ConfigMap data and binaryData in separate
	// sections: any byte changed anywhere changes the checksum, and
	// {"ab":"c"} and {"a":"bc"} differ. See [ChecksumConfigMap].
	ChecksumFramed ChecksumAlgorithm = iota
	// ChecksumXing reproduces the kubernetes-deployment-restart-controller:
	// SHA-256 of encoding/json's encoding of ConfigMap data or Secret data.
	// Recorded checksums of that controller stay valid, so switching to this
	// package with [XingKeys] restarts nothing. See [XingChecksumConfigMap].
	ChecksumXing
)

// String returns "framed" or "xing".
func (a ChecksumAlgorithm) String() string {
	switch a {
	case ChecksumFramed:
		return "framed"
	case ChecksumXing:
		return "xing"
	}
	return fmt.Sprintf("ChecksumAlgorithm(%d)", int(a))
}

const framedDomain = "deploymath.io/restart checksum v1\x00"

// framedSection appends tag, the pair count and every pair (sorted by key)
// as length-prefixed key and value.
func framedSection[V ~string | ~[]byte](buf []byte, tag byte, m map[string]V) []byte {
	buf = append(buf, tag)
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(m)))
	if len(m) == 0 {
		return buf
	}
	keys := make([]string, 0, len(m))
	size := 0
	for k, v := range m {
		keys = append(keys, k)
		size += 16 + len(k) + len(v)
	}
	slices.Sort(keys)
	buf = slices.Grow(buf, size)
	for _, k := range keys {
		v := m[k]
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(k)))
		buf = append(buf, k...)
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	return buf
}

func sum16(buf []byte) string {
	s := sha256.Sum256(buf)
	return hex.EncodeToString(s[:8])
}

// ChecksumConfigMap returns the [ChecksumFramed] checksum of a ConfigMap: 16
// hex characters over data and binaryData, independent of map order, and
// unaffected by metadata. A nil and an empty map give the same checksum; a nil
// ConfigMap is treated as one without data.
func ChecksumConfigMap(cm *corev1.ConfigMap) string {
	var data map[string]string
	var bin map[string][]byte
	if cm != nil {
		data, bin = cm.Data, cm.BinaryData
	}
	buf := make([]byte, 0, 64)
	buf = append(buf, framedDomain...)
	buf = append(buf, "configmap\x00"...)
	buf = framedSection(buf, 'd', data)
	buf = framedSection(buf, 'b', bin)
	return sum16(buf)
}

// ChecksumSecret returns the [ChecksumFramed] checksum of a Secret: 16 hex
// characters over data. stringData, which the API server merges into data on
// write (a stringData key wins over the same data key), is merged the same
// way, so a manifest and the stored object have the same checksum. Type and
// metadata are ignored. A nil Secret is treated as one without data.
func ChecksumSecret(s *corev1.Secret) string {
	buf := make([]byte, 0, 64)
	buf = append(buf, framedDomain...)
	buf = append(buf, "secret\x00"...)
	buf = framedSection(buf, 's', secretData(s))
	return sum16(buf)
}

// secretData returns data merged with stringData; without stringData it is
// s.Data itself (read only).
func secretData(s *corev1.Secret) map[string][]byte {
	if s == nil {
		return nil
	}
	if len(s.StringData) == 0 {
		return s.Data
	}
	m := make(map[string][]byte, len(s.Data)+len(s.StringData))
	maps.Copy(m, s.Data)
	for k, v := range s.StringData {
		m[k] = []byte(v)
	}
	return m
}

func jsonSum(v any) string {
	b, err := json.Marshal(v)
	if err != nil { // maps of strings and byte slices always marshal
		b = []byte(err.Error())
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// XingChecksumConfigMap returns the [ChecksumXing] checksum of a ConfigMap:
// the first 8 bytes, in hex, of the SHA-256 of encoding/json's encoding of
// data (keys sorted, a nil map encodes as null), exactly the value the
// kubernetes-deployment-restart-controller records. That controller ignores
// binaryData; here, a ConfigMap with binaryData hashes the JSON of
// {"data":…,"binaryData":…} instead, so binary edits are seen too (such
// ConfigMaps get a new checksum, and one restart, when switching).
func XingChecksumConfigMap(cm *corev1.ConfigMap) string {
	if cm == nil {
		return jsonSum(map[string]string(nil))
	}
	if len(cm.BinaryData) == 0 {
		return jsonSum(cm.Data)
	}
	return jsonSum(struct {
		Data       map[string]string `json:"data"`
		BinaryData map[string][]byte `json:"binaryData"`
	}{cm.Data, cm.BinaryData})
}

// XingChecksumSecret returns the [ChecksumXing] checksum of a Secret: the
// first 8 bytes, in hex, of the SHA-256 of encoding/json's encoding of data
// (values base64-encoded), as the kubernetes-deployment-restart-controller
// computes it; stringData is merged into data first, as in [ChecksumSecret].
func XingChecksumSecret(s *corev1.Secret) string {
	return jsonSum(secretData(s))
}

// Config is what the restart logic knows about a ConfigMap or Secret. Build it
// with [ConfigOf] or by hand.
type Config struct {
	// Kind, Namespace and Name identify the object.
	Kind      Kind
	Namespace string
	Name      string
	// ResourceVersion is metadata.resourceVersion; see
	// [Workload.ResourceVersion].
	ResourceVersion string
	// Checksum is the data checksum (16 hex characters); must not be empty.
	Checksum string
}

// Key returns "<kind>/<namespace>/<name>".
func (c Config) Key() string { return ConfigKey(c.Kind, c.Namespace, c.Name) }

// ConfigOf builds the [Config] of a *corev1.ConfigMap or *corev1.Secret with
// the given checksum algorithm.
func ConfigOf(obj runtime.Object, alg ChecksumAlgorithm) (Config, error) {
	var kind Kind
	var sum string
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		if o == nil {
			return Config{}, fmt.Errorf("%T: nil object", obj)
		}
		kind = KindConfigMap
		if alg == ChecksumXing {
			sum = XingChecksumConfigMap(o)
		} else {
			sum = ChecksumConfigMap(o)
		}
	case *corev1.Secret:
		if o == nil {
			return Config{}, fmt.Errorf("%T: nil object", obj)
		}
		kind = KindSecret
		if alg == ChecksumXing {
			sum = XingChecksumSecret(o)
		} else {
			sum = ChecksumSecret(o)
		}
	default:
		return Config{}, fmt.Errorf("%T: %w", obj, ErrUnsupported)
	}
	m := objectMeta(obj)
	return Config{
		Kind:            kind,
		Namespace:       m.Namespace,
		Name:            m.Name,
		ResourceVersion: m.ResourceVersion,
		Checksum:        sum,
	}, nil
}

type metaView struct {
	Namespace, Name, ResourceVersion string
	Annotations                      map[string]string
}

func objectMeta(obj runtime.Object) metaView {
	if o, ok := obj.(metav1.Object); ok {
		return metaView{o.GetNamespace(), o.GetName(), o.GetResourceVersion(), o.GetAnnotations()}
	}
	return metaView{}
}
