package rules

import (
	networking "istio.io/api/networking/v1alpha3"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Kubernetes Gateway API GRPCRoutes as istiod sees them: exactly like HTTPRoutes (the same
// parents, hostnames, merge and order; ConvertHTTPAndGRPCRoutes), with gRPC matches written as
// HTTP path matches on "/<service>/<method>".

// kubeGRPCRouteRules mirrors the conversion loop of GRPCRouteCollection and convertGRPCRoute:
// one Istio route per rule and match, named "<ns>.<name>.<rule index>" unless the rule is named;
// a rule whose backends all weigh 0 answers 500; ok is false on a hard error (a match without
// service and method, a filter istiod does not convert), and istiod then generates nothing for
// the route.
func kubeGRPCRouteRules(obj *gatewayv1.GRPCRoute, in KubeRouteInputs, mesh bool) ([]*networking.HTTPRoute, bool) {
	var out []*networking.HTTPRoute
	for n, r := range obj.Spec.Rules {
		for _, f := range r.Filters {
			switch f.Type {
			case gatewayv1.GRPCRouteFilterRequestHeaderModifier, gatewayv1.GRPCRouteFilterResponseHeaderModifier:
			case gatewayv1.GRPCRouteFilterRequestMirror:
				// converted by istiod (a mirror cluster); not modelled (KubeGRPCRouteModelled)
			default:
				return nil, false
			}
		}
		for _, m := range kubeRuleMatches(r.Matches) {
			route := &networking.HTTPRoute{Name: kubeRuleName(obj.ObjectMeta, n, r.Name)}
			if m != nil {
				mr, ok := kubeGRPCMatch(*m)
				if !ok {
					return nil, false
				}
				route.Match = []*networking.HTTPMatchRequest{mr}
			}
			refs := make([]gatewayv1.BackendRef, 0, len(r.BackendRefs))
			sum := 0
			for _, b := range r.BackendRefs {
				refs = append(refs, b.BackendRef)
				if b.Weight == nil {
					sum++
				} else {
					sum += int(*b.Weight)
				}
			}
			if sum == 0 {
				route.DirectResponse = &networking.HTTPDirectResponse{Status: 500}
			} else {
				for _, b := range r.BackendRefs {
					for _, f := range b.Filters {
						if f.Type != gatewayv1.GRPCRouteFilterRequestHeaderModifier && f.Type != gatewayv1.GRPCRouteFilterResponseHeaderModifier {
							return nil, false
						}
					}
				}
				dests, ok := kubeWeightedDestinations(refs, obj.Namespace, "GRPCRoute", in, !mesh)
				if !ok {
					return nil, false
				}
				route.Route = dests
			}
			out = append(out, route)
		}
	}
	return out, true
}

// kubeGRPCMatch mirrors createGRPCURIMatch and createGRPCHeadersMatch: a method match becomes a
// path match ("/<service>/<method>" exact, "/<service>/" prefix, or a regular expression when
// the service or method is missing or the match type is RegularExpression); headers match
// exactly or by regular expression. ok is false for a method match naming neither service nor
// method.
func kubeGRPCMatch(m gatewayv1.GRPCRouteMatch) (*networking.HTTPMatchRequest, bool) {
	out := &networking.HTTPMatchRequest{}
	if mm := m.Method; mm != nil {
		if mm.Service == nil && mm.Method == nil {
			return nil, false
		}
		regex := mm.Type != nil && *mm.Type == gatewayv1.GRPCMethodMatchRegularExpression
		switch {
		case mm.Type != nil && *mm.Type != gatewayv1.GRPCMethodMatchExact && !regex:
			return nil, false
		case mm.Service == nil:
			out.Uri = &networking.StringMatch{MatchType: &networking.StringMatch_Regex{Regex: "/[^/]+/" + *mm.Method}}
		case mm.Method == nil && regex:
			out.Uri = &networking.StringMatch{MatchType: &networking.StringMatch_Regex{Regex: "/" + *mm.Service + "/.+"}}
		case mm.Method == nil:
			out.Uri = &networking.StringMatch{MatchType: &networking.StringMatch_Prefix{Prefix: "/" + *mm.Service + "/"}}
		case regex:
			out.Uri = &networking.StringMatch{MatchType: &networking.StringMatch_Regex{Regex: "/" + *mm.Service + "/" + *mm.Method}}
		default:
			out.Uri = &networking.StringMatch{MatchType: &networking.StringMatch_Exact{Exact: "/" + *mm.Service + "/" + *mm.Method}}
		}
	}
	for _, h := range m.Headers {
		if out.Headers == nil {
			out.Headers = map[string]*networking.StringMatch{}
		}
		switch {
		case h.Type == nil || *h.Type == gatewayv1.GRPCHeaderMatchExact:
			out.Headers[string(h.Name)] = &networking.StringMatch{MatchType: &networking.StringMatch_Exact{Exact: h.Value}}
		case *h.Type == gatewayv1.GRPCHeaderMatchRegularExpression:
			out.Headers[string(h.Name)] = &networking.StringMatch{MatchType: &networking.StringMatch_Regex{Regex: h.Value}}
		default:
			return nil, false
		}
	}
	return out, true
}

// KubeGRPCRouteModelled says whether the model predicts everything istiod makes of a GRPCRoute:
// every parentRef is a Gateway, a Service or a ServiceEntry, and no rule mirrors requests (a
// mirror adds a cluster the model does not follow). Header modifiers keep the destination.
func KubeGRPCRouteModelled(r *gatewayv1.GRPCRoute) bool {
	return KubeParentRefsModelled(r.Spec.ParentRefs, r.Namespace) && len(KubeGRPCRouteUnmodelledFilters(r)) == 0
}

// KubeGRPCRouteUnmodelledFilters lists the filter types of a GRPCRoute's rules the model does not
// follow (RequestMirror), once each.
func KubeGRPCRouteUnmodelledFilters(r *gatewayv1.GRPCRoute) []string {
	for _, rule := range r.Spec.Rules {
		for _, f := range rule.Filters {
			if f.Type == gatewayv1.GRPCRouteFilterRequestMirror {
				return []string{string(f.Type)}
			}
		}
	}
	return nil
}
