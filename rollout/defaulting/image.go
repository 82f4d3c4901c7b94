package defaulting

import (
	"regexp"
	"strings"
)

// The grammar of an image reference, as the container image tools define it
// (github.com/distribution/reference, which the API server uses to choose a
// pull policy):
//
//	reference  := name [ ":" tag ] [ "@" digest ]
//	name       := [ domain "/" ] path
//	domain     := host [ ":" port ]        host: DNS labels joined by ".", or [IPv6]
//	path       := component ( "/" component )*
//	component  := [a-z0-9]+ ( separator [a-z0-9]+ )*    separator: "." "_" "__" or dashes
//	tag        := [\w][\w.-]{0,127}
//	digest     := algorithm ":" hex{32,}
const (
	refComponent = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	refPath      = refComponent + `(?:/` + refComponent + `)*`
	refLabel     = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refDomain    = `(?:` + refLabel + `(?:\.` + refLabel + `)*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?`
	refTag       = `[\w][\w.-]{0,127}`
	refDigest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
)

var (
	// referenceRE captures the name, the tag and the digest.
	referenceRE = regexp.MustCompile(`^((?:` + refDomain + `/)?` + refPath + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	// nameRE splits a name into its domain (possibly empty) and path.
	nameRE = regexp.MustCompile(`^(?:(` + refDomain + `)/)?(` + refPath + `)$`)
	// hexIDRE is a bare image ID, which is not a valid name.
	hexIDRE = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

// digestLengths are the hex lengths of the digest algorithms the server
// knows; a digest of another algorithm makes the reference invalid.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// maxPathLen is the longest repository path a reference may have.
const maxPathLen = 255

// imageTag returns the tag the API server sees in an image reference after
// normalising it as Docker does (docker.io and library/ added to short
// names): the tag as written, "latest" when there is neither tag nor digest,
// "" when there is only a digest. ok is false when the reference does not
// parse.
func imageTag(image string) (tag string, ok bool) {
	if hexIDRE.MatchString(image) {
		return "", false
	}
	domain, rest := splitDomain(image)
	repo := rest
	if i := strings.IndexByte(rest, ':'); i >= 0 {
		repo = rest[:i]
	}
	if strings.ToLower(repo) != repo {
		return "", false
	}
	m := referenceRE.FindStringSubmatch(domain + "/" + rest)
	if m == nil {
		return "", false
	}
	path := m[1]
	if n := nameRE.FindStringSubmatch(m[1]); n != nil {
		path = n[2]
	}
	if len(path) > maxPathLen {
		return "", false
	}
	tag, digest := m[2], m[3]
	if digest != "" {
		alg, hex, _ := strings.Cut(digest, ":")
		want, known := digestLengths[alg]
		if !known || len(hex) != want || strings.ToLower(hex) != hex {
			return "", false
		}
	}
	if tag == "" && digest == "" {
		tag = "latest"
	}
	return tag, true
}

// splitDomain splits a reference into its registry and the rest, filling
// in Docker Hub's defaults: the first segment is a registry when it is
// localhost, or contains "." or ":", or has an upper-case letter (the legacy
// index.docker.io is docker.io); otherwise the registry is docker.io, and a
// one-segment name there gets library/.
func splitDomain(image string) (domain, rest string) {
	first, after, found := strings.Cut(image, "/")
	switch {
	case !found:
		return "docker.io", "library/" + image
	case first == "index.docker.io":
		domain, rest = "docker.io", after
	case first == "localhost", strings.ContainsAny(first, ".:"), strings.ToLower(first) != first:
		domain, rest = first, after
	default:
		domain, rest = "docker.io", image
	}
	if domain == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	return domain, rest
}
