package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// AnnotationBundleVersion is the annotation the Gateway API puts on its CRDs: the release the
// CRD comes from.
const AnnotationBundleVersion = "gateway.networking.k8s.io/bundle-version"

// kubeCRDMinimum is the oldest Gateway API release whose CRD istiod watches, by route kind.
// Mirrors istiod pkg/config/schema/gatewayapi/minimumversions.go MinimumCRDVersions.
var kubeCRDMinimum = map[string]string{
	"GRPCRoute":        "v1.1.0",
	"BackendTLSPolicy": "v1.4.0",
	"TLSRoute":         "v1.5.0",
	"TCPRoute":         "v1.6.0",
}

// KubeCRDMinimum is the oldest Gateway API release whose CRD of kind istiod watches ("" when it
// takes any).
func KubeCRDMinimum(kind string) string { return kubeCRDMinimum[kind] }

// KubeCRDMinimumAll is the oldest Gateway API release whose CRDs istiod watches for every
// route kind: an install replaces all of them at once.
func KubeCRDMinimumAll() string {
	best, bestV := "", [3]int{}
	for _, m := range kubeCRDMinimum {
		if v, ok := bundleRelease(m); ok && (best == "" || v[0] > bestV[0] || v[0] == bestV[0] && (v[1] > bestV[1] || v[1] == bestV[1] && v[2] > bestV[2])) {
			best, bestV = m, v
		}
	}
	return best
}

// KubeCRDIgnored says whether istiod ignores every object of a Gateway API kind because of its
// CRD: the CRD's bundle-version annotation (present: the CRD was read and carries the
// annotation) is missing, not a version, or older than istiod's minimum for the kind; why says
// which. A kind without a minimum is never ignored.
//
// Mirrors istiod pkg/kube/kclient/crdwatcher.go minimumVersionFilter (a pre-release is rounded
// up: v1.5.0-rc.1 counts as v1.5.0).
func KubeCRDIgnored(kind, bundleVersion string, present bool) (ignored bool, why string) {
	minimum := kubeCRDMinimum[kind]
	if minimum == "" {
		return false, ""
	}
	if !present {
		return true, "its CRD has no " + AnnotationBundleVersion + " annotation"
	}
	have, ok := bundleRelease(bundleVersion)
	if !ok {
		return true, "its CRD's " + AnnotationBundleVersion + " " + bundleVersion + " is not a version"
	}
	want, _ := bundleRelease(minimum)
	for i := range have {
		if have[i] != want[i] {
			if have[i] < want[i] {
				return true, "its CRD comes from Gateway API " + bundleVersion + ", older than " + minimum + ", the oldest istiod reads"
			}
			break
		}
	}
	return false, ""
}

// bundleRelease parses a bundle version ("v1.5.0", "1.5.0", "v1.5.0-rc.1") into major, minor and
// patch; a pre-release or build suffix is dropped (istiod rounds it up to the release).
func bundleRelease(v string) ([3]int, bool) {
	var out [3]int
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) == 0 || len(parts) > 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || fmt.Sprint(n) != p {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
