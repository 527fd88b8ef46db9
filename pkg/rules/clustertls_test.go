package rules

import (
	"testing"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// ClusterTLS follows istiod's util.MergeSubsetTrafficPolicy: a port-level setting replaces the
// whole policy (tls included, even unset); a subset's policy overrides only the tls it sets,
// unless it has a port-level setting for the port.
func TestClusterTLS(t *testing.T) {
	tls := func(m networking.ClientTLSSettings_TLSmode) *networking.ClientTLSSettings {
		return &networking.ClientTLSSettings{Mode: m}
	}
	lb := &networking.LoadBalancerSettings{LbPolicy: &networking.LoadBalancerSettings_Simple{Simple: networking.LoadBalancerSettings_ROUND_ROBIN}}
	port := func(n uint32, t *networking.ClientTLSSettings) *networking.TrafficPolicy_PortTrafficPolicy {
		return &networking.TrafficPolicy_PortTrafficPolicy{Port: &networking.PortSelector{Number: n}, Tls: t, LoadBalancer: lb}
	}
	choice := func(top *networking.TrafficPolicy, sub *networking.TrafficPolicy) *DRChoice {
		dr := &networkingv1.DestinationRule{}
		dr.Spec.TrafficPolicy = top
		dr.Spec.Subsets = []*networking.Subset{{Name: "s", TrafficPolicy: sub}}
		return &DRChoice{Rules: []*networkingv1.DestinationRule{dr}, Subsets: []string{"s"}, TrafficPolicy: top}
	}
	mutual, simple := networking.ClientTLSSettings_ISTIO_MUTUAL, networking.ClientTLSSettings_SIMPLE
	for _, c := range []struct {
		name   string
		ch     *DRChoice
		port   uint32
		subset string
		want   string
	}{
		{"no rule", nil, 443, "", ""},
		{"top level", choice(&networking.TrafficPolicy{Tls: tls(mutual)}, nil), 443, "", "ISTIO_MUTUAL"},
		{"port level replaces, no tls", choice(&networking.TrafficPolicy{Tls: tls(mutual), PortLevelSettings: []*networking.TrafficPolicy_PortTrafficPolicy{port(443, nil)}}, nil), 443, "", ""},
		{"port level of another port", choice(&networking.TrafficPolicy{Tls: tls(mutual), PortLevelSettings: []*networking.TrafficPolicy_PortTrafficPolicy{port(80, nil)}}, nil), 443, "", "ISTIO_MUTUAL"},
		{"port level tls", choice(&networking.TrafficPolicy{PortLevelSettings: []*networking.TrafficPolicy_PortTrafficPolicy{port(443, tls(simple))}}, nil), 443, "", "SIMPLE"},
		{"subset without tls keeps top level", choice(&networking.TrafficPolicy{Tls: tls(mutual)}, &networking.TrafficPolicy{LoadBalancer: lb}), 443, "s", "ISTIO_MUTUAL"},
		{"subset tls overrides", choice(&networking.TrafficPolicy{Tls: tls(mutual)}, &networking.TrafficPolicy{Tls: tls(simple)}), 443, "s", "SIMPLE"},
		{"subset port level replaces", choice(nil, &networking.TrafficPolicy{Tls: tls(mutual), PortLevelSettings: []*networking.TrafficPolicy_PortTrafficPolicy{port(443, nil)}}), 443, "s", ""},
		{"subset port level over top level tls", choice(&networking.TrafficPolicy{Tls: tls(mutual)}, &networking.TrafficPolicy{PortLevelSettings: []*networking.TrafficPolicy_PortTrafficPolicy{port(443, nil)}}), 443, "s", ""},
		{"default cluster ignores subset", choice(nil, &networking.TrafficPolicy{Tls: tls(simple)}), 443, "", ""},
	} {
		got := ""
		if x := c.ch.ClusterTLS(c.port, c.subset); x != nil {
			got = x.GetMode().String()
		}
		if got != c.want {
			t.Errorf("%s: ClusterTLS = %q, want %q", c.name, got, c.want)
		}
	}
}
