package checks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCatalogIDs: every catalogue entry has a row in catalogRefs with a well-formed, unique ID in
// the group of its command, a seed and a source; every row has an entry.
func TestCatalogIDs(t *testing.T) {
	idRE := regexp.MustCompile(`^EGR0[1-59][0-9]{2}$`)
	groups := map[string][]string{
		"01": {CauseOK, CauseInputUnknown, CauseHostNotFound, CausePortNotDeclared, CauseNotExported, CauseNoCluster, CauseNotReferenced,
			CauseGatewayRefUnresolve, CauseRouteNotBound, CauseNoVirtualHost, CauseSubsetNotDefined, CauseProxyDisagrees, CauseModelDisagrees,
			CauseNoEndpoints, "LEGACY_GATEWAY_REF", "NO_ROUTE_THROUGH_GATEWAY", "DELEGATE_UNUSABLE", "FLAG_ROUTE_DISAGREEMENT",
			"GATEWAY_ROUTES_TO_ITSELF", "DESTINATION_CLUSTER_ABSENT",
			PathOK, PathDirect, PathSidecarNoRoute, PathSidecarNoChain, PathGatewayNotListen, GatewayPrivilegedPort, PathTLSMismatch, PathGatewayNoRoute,
			PathGatewayNoChain, PathAmbiguousService, PathHTTP2Downgraded, PathHTTP2ThroughTCP, PathGatewayOtherEntry, PathSidecarPlainToTLS, CauseGatewayNotApplied, PathWrongService, PathRouteMatchAssumed, PathAnsweredByRoute, PathFaultAbort, GatewayServiceSpans, PathSidecarsAmbiguous, PathMirrorAbsent, PathNotOriginated, PathCredentialMissing, PathCredentialUnchecked, PathIstioMTLSToExternal, PathAutoMTLSToEntry, EgressProxyHTTPOnly, PreflightSidecarRejected, PathTLSToPlaintext, PathOriginationUnused, PathBackendRefused, PathAllWeightsZero, PreflightRouteNotAccepted, PreflightCRDTooOld, PreflightMeshPortUndeclared, PreflightDRPortUndeclared, PreflightSERejected, PreflightHTTPOnTCPPort, PreflightVSRejected, PreflightGatewayRejected, PreflightDRRejected, PreflightDRMergeDrops, PathClientRevisionUnserved},
		"02": {AuditSENotExportedToGateway, AuditVSNotExportedToGateway, AuditSENotExportedToClient, AuditDRNotOnLookupPath, AuditDRNotExportedToClient, AuditDRTLSNotExportedToGW,
			AuditSubsetUndefined, AuditDuplicateHost, AuditDRShadowed, AuditSidecarImportHidden, AuditSidecarImportUnknown,
			AuditSvcNotExportedToClient, AuditSvcNotExportedToGW, AuditSEExportedEverywhere, AuditVSMeshNoClient, AuditDelegateNotExported},
		"03": {ListenerCatchAllTCP, ListenerCatchAllTLSPort, ListenerChainDropped, ListenerWellKnownPort, ListenerHTTPShadowsTCP,
			ListenerHTTP2Undeclared, ListenerHostNotInRegistry, ListenerNotImported, ListenerDoubleTLS, ListenerNoneNoAddresses,
			ListenerWildcardDNS, ListenerStrictDNS, ListenerNoChains, ListenerHTTPOnPassthrough, ListenerTLSOnTerminating,
			ListenerNoCredential, ListenerCredentialMissing, ListenerCertUnused, ListenerTLSBehindHTTP, ListenerGatewayServiceLack, ListenerBlackHole, ListenerHTTPRoutesIgnored,
			ListenerActualDiffers, ListenerClusterAbsent, ListenerServerDropped, ListenerUnreachable, ListenerServerFirstSniffed, AppProtocolOverridesName, ListenerHostsCrashIstiod, ListenerHiddenPassthrough, ListenerRouteShadowed, ListenerWildcardNotJoined, ListenerWildcardSNIPartial},
		"04": {VisStatusDrift, VisHiddenEverywhere, VisWaypointForbidden, VisRuleNeverMatches, VisPolicyMatchesAll, VisNotImported, VisWaypointUnpublished},
		"05": {AmbientViaWaypoint, AmbientDirect, WaypointNotFound, WaypointNotForServices, WaypointNotAllowed, WaypointNoStatusAddress, AmbientNoAddress, AmbientSettingIgnored, WaypointStatusDrift, WaypointNotWaypointClass, AmbientLabelWithSidecar, WaypointAnnotation, AmbientDNSCaptureOff, WaypointRouteIgnored, WaypointBackendUndeclared, WaypointHTTPPortNotHTTP, AmbientRouteNoWaypoint, WaypointSkipsInternalDNS, WaypointDynamicDNSPort, AmbientDynamicDNSNoWP, WaypointPlainToTLS, AmbientPlainToTLS},
		"09": {PreflightSuppressionUnused, PreflightSuppressionInvalid, PreflightCheckSkipped, PreflightGatewayAPINotModelled, PreflightNotDiscovered, PreflightRouteStatusDiffers, PreflightGatewayAPIOtherClass, PreflightHostnameStatusHarmless, PreflightGatewayNotProgrammed},
	}
	groupOf := map[string]string{}
	for g, codes := range groups {
		for _, c := range codes {
			groupOf[c] = g
		}
	}
	seenID := map[string]string{}
	seenCode := map[string]bool{}
	for _, e := range Catalog {
		if seenCode[e.Code] {
			t.Errorf("code %s is catalogued twice", e.Code)
		}
		seenCode[e.Code] = true
		id := e.ID()
		switch {
		case id == "":
			t.Errorf("%s has no ID: add it to catalogRefs in catalog.go", e.Code)
			continue
		case !idRE.MatchString(id):
			t.Errorf("%s: ID %q is not EGR01xx-EGR05xx or EGR09xx", e.Code, id)
		}
		if other, dup := seenID[id]; dup {
			t.Errorf("ID %s is used by both %s and %s", id, other, e.Code)
		}
		seenID[id] = e.Code
		g, ok := groupOf[e.Code]
		if !ok {
			t.Errorf("%s (%s) is in no group of this test: add it to the list of its command", e.Code, id)
		} else if id[3:5] != g {
			t.Errorf("%s: ID %s is not in group EGR%sxx", e.Code, id, g)
		}
		if strings.TrimSpace(e.Seed()) == "" || strings.TrimSpace(e.Source()) == "" {
			t.Errorf("%s: seed %q and source %q must both be set", e.Code, e.Seed(), e.Source())
		}
		if e.Level != LevelError && e.Level != LevelWarning && e.Level != LevelInfo {
			t.Errorf("%s: level %q", e.Code, e.Level)
		}
		if CheckOfID(id) == "" {
			t.Errorf("%s: CheckOfID(%s) is empty", e.Code, id)
		}
	}
	for code, r := range catalogRefs {
		if !seenCode[code] {
			t.Errorf("catalogRefs has %s (%s) but Catalog has no such code", code, r.ID)
		}
	}
	for g, codes := range groups {
		for _, c := range codes {
			if !seenCode[c] {
				t.Errorf("group %s lists %s, which Catalog lacks", g, c)
			}
		}
	}
}

// TestLookupID finds entries by ID and by code, in any case.
func TestLookupID(t *testing.T) {
	for _, key := range []string{"EGR0104", "egr0104", CauseNotExported, strings.ToLower(CauseNotExported)} {
		e, ok := LookupID(key)
		if !ok || e.Code != CauseNotExported || e.ID() != "EGR0104" {
			t.Errorf("LookupID(%q) = %+v, %v", key, e, ok)
		}
	}
	if _, ok := LookupID("EGR9999"); ok {
		t.Errorf("LookupID(EGR9999) found something")
	}
}

// TestFindingsDocUpToDate: docs/findings.md is what hack/gen-findings writes.
func TestFindingsDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "findings.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go run ./hack/gen-findings)", err)
	}
	want := FindingsMarkdown()
	if string(got) != want {
		t.Errorf("docs/findings.md is out of date with checks.Catalog: run `go run ./hack/gen-findings` (or `go generate ./pkg/checks`)")
	}
	for _, e := range Catalog {
		if !strings.Contains(want, "| "+e.ID()+" | `"+e.Code+"` |") {
			t.Errorf("generated table has no row for %s %s", e.ID(), e.Code)
		}
	}
}

// TestCausePages: every catalogue entry links a docs/causes page that exists and lists its code.
func TestCausePages(t *testing.T) {
	for _, e := range Catalog {
		p := e.DocPath()
		if p == "" {
			t.Errorf("%s has no docs/causes page: add it to causePages in catalog.go", e.Code)
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Errorf("%s: %v", e.Code, err)
			continue
		}
		if !strings.Contains(string(b), "`"+e.Code+"`") {
			t.Errorf("%s: %s does not list the code", e.Code, p)
		}
	}
	for code := range causePages {
		if _, ok := Lookup(code); !ok {
			t.Errorf("causePages has %s, which the catalogue does not", code)
		}
	}
}
