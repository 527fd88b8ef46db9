package checks

import (
	"slices"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// NotFoundAnswer is what a proxy answers a request or connection that its route sends to a
// cluster it does not have. One decision for every command (why-missing's gateway verdict, the
// traced path, explain-listener, export-audit, --symptom):
//   - an HTTP route: 503 NC (Envoy's cluster_not_found_response_code default);
//   - an HTTP route with Gateway API semantics: 500 NC (route.go applyHTTPRouteDestination sets
//     ClusterNotFoundResponseCode INTERNAL_SERVER_ERROR when the VirtualService carries the
//     Gateway API semantics annotation, model.UseGatewaySemantics);
//   - a tls or tcp route (tcp_proxy): no HTTP status, the proxy closes the connection (NC).
type NotFoundAnswer string

const (
	Answer503    NotFoundAnswer = "503 NC"
	Answer500    NotFoundAnswer = "500 NC"
	AnswerClosed NotFoundAnswer = "closed (NC)"
)

// notFoundAnswer is the answer for a route of that kind (http: an HTTP route; gatewayAPI: its
// VirtualService has Gateway API semantics).
func notFoundAnswer(http, gatewayAPI bool) NotFoundAnswer {
	switch {
	case !http:
		return AnswerClosed
	case gatewayAPI:
		return Answer500
	}
	return Answer503
}

// notFoundAnswerFor is notFoundAnswer for route kind kind of VirtualService vs (nil: a classic
// route).
func notFoundAnswerFor(kind string, vs *networkingv1.VirtualService) NotFoundAnswer {
	return notFoundAnswer(kind == rules.RouteHTTP, vs != nil && rules.GatewaySemantics(vs))
}

// Text is the answer in a sentence's words.
func (a NotFoundAnswer) Text() string {
	switch a {
	case Answer500:
		return "500 NC (a Kubernetes Gateway API route answers 500 when its backend's cluster is missing)"
	case AnswerClosed:
		return "a closed connection (response flag NC)"
	}
	return "503 NC"
}

// Sentence says it as a sentence about proxy ("the gateway", "the sidecar").
func (a NotFoundAnswer) Sentence(proxy string) string {
	switch a {
	case AnswerClosed:
		return upperFirst(proxy) + " closes the connection (response flag NC)."
	case Answer500:
		return "The call fails with 500 NC at " + proxy + " (a Kubernetes Gateway API route answers 500 when its backend's cluster is missing)."
	}
	return "The call fails with 503 NC at " + proxy + "."
}

// Symptom is the --symptom value the answer produces.
func (a NotFoundAnswer) Symptom() string {
	switch a {
	case Answer500:
		return "500"
	case AnswerClosed:
		return "reset"
	}
	return "503"
}

// addAnswer appends a to as once.
func addAnswer(as []NotFoundAnswer, a NotFoundAnswer) []NotFoundAnswer {
	if slices.Contains(as, a) {
		return as
	}
	return append(as, a)
}

// notFound records what clients get for the missing cluster the verdict is about (when the
// verdict is not decided yet: the fail this feeds takes it) and returns its words.
func (e *evaluation) notFound(a NotFoundAnswer) string {
	if e.cause == "" {
		e.v.Answers = addAnswer(e.v.Answers, a)
	}
	return a.Text()
}
