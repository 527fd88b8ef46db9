package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
)

// Symptoms are the values of why-missing --symptom: Envoy response flags (NC no cluster, NR no
// route, UH no healthy upstream, UF upstream connection failure, UC upstream connection
// termination, UO upstream overflow) and the
// HTTP statuses clients see (404, 502, 400, 503, which Envoy answers for NC, UH, UF and UO, and
// 500, which a Kubernetes Gateway API route with no usable backend answers), plus "reset" (a
// connection reset, often a TLS handshake that fails).
var Symptoms = []string{"NC", "NR", "UH", "UF", "UC", "UO", "FI", "404", "502", "400", "503", "500", "reset"}

// symptomFlags: the flags a path trace reports (PathTrace.Flag) that a client describes as the
// symptom. 404 is what a client sees for NR; 502 for a BlackHoleCluster or a direct 502; a
// failed TLS handshake between the hops shows as UF, a reset, or a 400 when plaintext HTTP
// reaches a TLS port.
var symptomFlags = map[string][]string{
	"NC":  {"NC", "NC/BlackHoleCluster"},
	"NR":  {"NR", "404"},
	"404": {"NR", "404"},
	"UH":  {"UH"},
	"UF":  {"UF"},
	"UC":  {"UC"},
	"UO":  {},
	"FI":  {"FI"},
	"502": {"502", "BlackHoleCluster", "NC/BlackHoleCluster"},
	"400": {},
	"500": {"500"},
	// 503: a missing cluster under a classic HTTP route (NC, see producesSymptom), no healthy
	// endpoint, a failed upstream connection or an overflow
	"503":   {"UH", "UF", "UC", "UO"},
	"reset": {"reset"},
}

// symptomCauses: path causes that produce the symptom whatever flag the trace reports for them
// (a TLS mismatch between the hops is a UF to the sidecar, a reset handshake to a client
// speaking TLS, a 400 to plaintext HTTP reaching a TLS server).
var symptomCauses = map[string][]string{
	// plaintext reaching a TLS port: a TLS mismatch between the hops, or the gateway sending
	// plaintext to an external TLS port (the server answers 400 or resets)
	"400": {PathTLSMismatch, PathNotOriginated},
	// a failed handshake (TLS inside TLS, or the wrong server's certificate behind another
	// entry's chain) reaches the application as a reset or closed connection
	"reset": {PathTLSMismatch, ListenerDoubleTLS, ListenerChainDropped, ListenerCatchAllTLSPort, PathWrongService, PathNotOriginated},
}

func producesSymptom(p *PathTrace, symptom string) bool {
	// a missing cluster on a TLS or TCP call: the proxy closes the connection
	closedNC := p.Flag == "NC" && (p.Call == rules.CallTLS || p.Call == rules.CallTCP)
	return p.Failed() && (slices.Contains(symptomFlags[symptom], p.Flag) || slices.Contains(symptomCauses[symptom], p.Cause) || tlsUCorUF(p, symptom) ||
		(p.Answer != "" && p.Answer.Symptom() == symptom) || (symptom == "reset" && closedNC) ||
		// an NC from a classic HTTP route (or one the trace did not qualify) is a 503
		(symptom == "503" && p.Flag == "NC" && !closedNC && (p.Answer == "" || p.Answer == Answer503)))
}

// tlsUCorUF: the path fails on TLS between the hops with UC (plaintext into a server that
// expects TLS) and the symptom is UF. Which of the two Envoy logs depends on timing: the gateway
// closes a connection whose bytes no filter chain accepts, before the request is written (UF:
// the upstream connection failed) or after (UC: upstream connection termination); blind audit
// 76 W4, where --symptom UF sent the operator away from the real fault.
func tlsUCorUF(p *PathTrace, symptom string) bool {
	return p.Cause == PathTLSMismatch && p.Flag == "UC" && symptom == "UF"
}

// symptomSteps: the hop steps that can produce the symptom.
var symptomSteps = map[string][]string{
	"NC":    {"cluster"},
	"NR":    {"route"},
	"404":   {"route"},
	"UH":    {"endpoints", "cluster"},
	"UF":    {"service port", "listener", "tls", "upstream tls"},
	"UC":    {"listener", "tls", "upstream tls"},
	"UO":    {},
	"FI":    {"route"},
	"502":   {"route", "cluster"},
	"400":   {"tls", "upstream tls"},
	"500":   {"route", "cluster"},
	"503":   {"cluster", "endpoints", "service port", "listener", "tls", "upstream tls"},
	"reset": {"route", "listener", "tls", "filter chain", "cluster", "upstream tls"},
}

// symptomElsewhere: what produces the symptom outside the configuration a path trace reads.
var symptomElsewhere = map[string]string{
	"NC":    "the proxy has not received the configuration yet (`istioctl proxy-status` shows it STALE), or the client calls another host or port than the one traced.",
	"NR":    "the request's Host header or path does not match the route (the trace sends Host " + "HOST" + " and path /), or the client calls another port.",
	"404":   "the request's Host header or path does not match the route (the trace sends Host " + "HOST" + " and path /), or the external service itself answers 404 (no response flag in the access log).",
	"UH":    "every endpoint is unhealthy at run time: DNS returns no address for a DNS entry, or outlier detection ejected them (`istioctl proxy-config endpoints` shows their health).",
	"UF":    "the external host refuses or drops the connection (a firewall, a NetworkPolicy, an egress IP allowlist), or the upstream TLS handshake fails (TLS originated to a plaintext port, or a wrong SNI).",
	"UO":    "a DestinationRule's connectionPool limits (maxConnections, http1MaxPendingRequests, http2MaxRequests) overflow under load; the configuration alone never produces it.",
	"FI":    "a fault injection the traced routes do not carry: another VirtualService for the host on another proxy (a sourceLabels match, another gateway), or an EnvoyFilter adding the fault filter.",
	"502":   "the external service resets or answers with a malformed response, or TLS is originated twice (the application already speaks TLS to a port the sidecar or gateway also originates on).",
	"400":   "the application sends plaintext HTTP to a TLS port (http:// to 443) or the external service rejects the request.",
	"503":   "every endpoint is unhealthy or ejected at run time, the external host refuses the connection (a firewall, a NetworkPolicy, an egress IP allowlist), connectionPool limits overflow under load, the proxy has not received its configuration yet (`istioctl proxy-status`), or the external service itself answers 503 (no response flag in the access log).",
	"500":   "the external service itself answers 500 (no response flag in the access log), or a route's fault injection or direct response returns it.",
	"reset": "the external host resets the connection, or the client's SNI is not the host the trace assumed.",
}

// SymptomVerdict relates what the user saw to the traced path.
type SymptomVerdict struct {
	Symptom string `json:"symptom"`
	// Matches is true when the path's failing hop produces the symptom.
	Matches bool `json:"matches"`
	// Hops are the path's hops that can produce the symptom (the narrowed search).
	Hops    []Hop  `json:"hops"`
	Message string `json:"message"`
}

// NormalizeSymptom returns the canonical symptom for s ("nr" → "NR") and whether it is known.
func NormalizeSymptom(s string) (string, bool) {
	for _, x := range Symptoms {
		if strings.EqualFold(x, strings.TrimSpace(s)) {
			return x, true
		}
	}
	return "", false
}

// MatchSymptom narrows a traced path to the hops that can produce the symptom and says whether
// the path's verdict explains it: the failing hop's flag is the symptom; or the path fails
// earlier with another flag (the client is then not making the call traced); or every hop passes
// and the symptom comes from outside the configuration (what, for each symptom).
func MatchSymptom(p *PathTrace, symptom string) SymptomVerdict {
	v := SymptomVerdict{Symptom: symptom, Hops: []Hop{}}
	for _, h := range p.Hops {
		if slices.Contains(symptomSteps[symptom], h.Step) {
			v.Hops = append(v.Hops, h)
		}
	}
	elsewhere := strings.ReplaceAll(symptomElsewhere[symptom], "HOST", p.Host)
	if symptom == "UO" || symptom == "UH" {
		// The DestinationRules on the path's clusters hold the limits (connectionPool: UO) and
		// the ejection (outlierDetection: UH) that produce these at run time.
		var drs []string
		for _, h := range p.Hops {
			for _, e := range h.Evidence {
				if strings.HasPrefix(e.Resource, "DestinationRule ") && !slices.Contains(drs, e.Resource) {
					drs = append(drs, e.Resource)
				}
			}
		}
		field := "connectionPool"
		if symptom == "UH" {
			field = "outlierDetection"
		}
		if len(drs) > 0 {
			elsewhere += fmt.Sprintf(" On this path: check trafficPolicy.%s of %s.", field, strings.Join(drs, ", "))
		}
	}
	switch {
	case producesSymptom(p, symptom):
		v.Matches = true
		v.Message = fmt.Sprintf("The traced path produces %s. %s", symptom, p.Message)
		if tlsUCorUF(p, symptom) {
			v.Message = fmt.Sprintf("The traced path produces %s (the trace says %s: Envoy logs the same TLS fault as UF or UC depending on whether the gateway closes the connection before or after the request is written). %s", symptom, p.Flag, p.Message)
		}
	case p.Failed():
		fails := p.Cause
		if p.Flag != "" {
			fails = p.Flag + " (" + p.Cause + ")"
		}
		v.Message = fmt.Sprintf("The traced path fails with %s, not %s: a client that sees %s is probably not making this call (check the port, --call, or trace its pod with --pod). Otherwise %s is produced where the configuration cannot show it: %s",
			fails, symptom, symptom, symptom, elsewhere)
	default:
		v.Message = fmt.Sprintf("No hop of this path produces %s in the configuration istiod generates from this input. %s then comes from outside it: %s", symptom, symptom, elsewhere)
	}
	return v
}

// MatchSymptomGateways relates the symptom to the gateways' verdicts when no client was traced:
// a gateway whose cluster for the host fails with that flag explains it; otherwise the symptom
// comes from a hop why-missing did not trace (rep.UntracedPaths) or from outside the
// configuration.
func MatchSymptomGateways(rep *Report, symptom string) SymptomVerdict {
	v := SymptomVerdict{Symptom: symptom, Hops: []Hop{}}
	for _, g := range rep.Gateways {
		c, ok := Lookup(g.Cause)
		// a missing cluster (NC) is a 500 under a Gateway API HTTP route, and a closed
		// connection under a TLS or TCP route: the verdict's answers say which
		asked := slices.Contains(symptomFlags[symptom], c.Flag) ||
			(c.Flag == "NC" && slices.ContainsFunc(g.Answers, func(a NotFoundAnswer) bool { return a.Symptom() == symptom })) ||
			(symptom == "503" && (c.Flag == "UH" || c.Flag == "UF" || (c.Flag == "NC" && len(g.Answers) == 0)))
		if ok && c.Level == LevelError && asked {
			v.Matches = true
			v.Message = fmt.Sprintf("Gateway %s produces %s. %s", g.Gateway, symptom, g.Message)
			return v
		}
		if g.emptyCluster != nil && (symptom == "UH" || symptom == "503") {
			// the verdict stopped at another fault, but the host's cluster there is empty too:
			// the calls that reach it get UH (blind audit 78 4e)
			v.Matches = true
			v.Message = fmt.Sprintf("Gateway %s produces %s for the calls that reach the host's own cluster. %s", g.Gateway, symptom, g.emptyCluster.msg)
			return v
		}
	}
	v.Message = fmt.Sprintf("No gateway's cluster for %s produces %s.", rep.Host, symptom)
	if len(rep.UntracedPaths) > 0 {
		v.Message += fmt.Sprintf(" %s can come from the hops between a client's sidecar and the gateway: trace a client's call with --from (the commands below).", symptom)
	} else {
		v.Message += " Otherwise it comes from outside the configuration: " + strings.ReplaceAll(symptomElsewhere[symptom], "HOST", rep.Host)
	}
	return v
}
