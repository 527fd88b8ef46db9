package rules

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

func TestParseProtocol(t *testing.T) {
	for in, want := range map[string]string{"http": ProtoHTTP, "HTTPS": ProtoHTTPS, "grpc-web": ProtoGRPCWeb, "Mongo": ProtoMongo, "": ProtoUnsupported, "h2": ProtoUnsupported, "tcp": ProtoTCP} {
		if got := ParseProtocol(in); got != want {
			t.Errorf("ParseProtocol(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKubePortProtocol(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		port  int32
		name  string
		proto corev1.Protocol
		app   *string
		want  string
	}{
		{80, "http-web", corev1.ProtocolTCP, nil, ProtoHTTP},
		{80, "web", corev1.ProtocolTCP, nil, ProtoUnsupported},
		{3306, "db", corev1.ProtocolTCP, nil, ProtoTCP},           // well-known port
		{3306, "mysql-main", corev1.ProtocolTCP, nil, ProtoMySQL}, // name wins
		{8080, "http", corev1.ProtocolTCP, s("kubernetes.io/h2c"), ProtoHTTP2},
		{8080, "http", corev1.ProtocolTCP, s("tcp"), ProtoTCP}, // appProtocol replaces the name
		{8080, "grpc-web-x", corev1.ProtocolTCP, nil, ProtoGRPCWeb},
		{53, "dns", corev1.ProtocolUDP, nil, ProtoUDP},
	}
	for _, c := range cases {
		if got := KubePortProtocol(c.port, c.name, c.proto, c.app); got != c.want {
			t.Errorf("KubePortProtocol(%d, %q, %s, %v) = %q, want %q", c.port, c.name, c.proto, c.app, got, c.want)
		}
	}
}

func ts(sec int) metav1.Time { return metav1.NewTime(time.Unix(int64(1700000000+sec), 0)) }

func sidecarCR(ns, name string, sel map[string]string, hosts ...string) *networkingv1.Sidecar {
	sc := &networkingv1.Sidecar{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: ts(len(name))}}
	if sel != nil {
		sc.Spec.WorkloadSelector = &networking.WorkloadSelector{Labels: sel}
	}
	if len(hosts) > 0 {
		sc.Spec.Egress = []*networking.IstioEgressListener{{Hosts: hosts}}
	}
	return sc
}

func TestSelectSidecar(t *testing.T) {
	nsWide := sidecarCR("team-a", "default", nil, "./*")
	bySel := sidecarCR("team-a", "for-app", map[string]string{"app": "x"}, "*/*")
	root := sidecarCR("istio-system", "mesh", nil, "istio-system/*")
	all := []*networkingv1.Sidecar{nsWide, bySel, root}
	if got := SelectSidecar(all, "istio-system", "team-a", map[string]string{"app": "x"}); got != bySel {
		t.Errorf("selector match: got %v", got.Name)
	}
	if got := SelectSidecar(all, "istio-system", "team-a", map[string]string{"app": "y"}); got != nsWide {
		t.Errorf("namespace-wide: got %v", got.Name)
	}
	if got := SelectSidecar(all, "istio-system", "team-b", nil); got != root {
		t.Errorf("root fallback: got %v", got)
	}
	if got := SelectSidecar(nil, "istio-system", "team-b", nil); got != nil {
		t.Errorf("none: got %v", got)
	}
}

func svc(ns, name, host string, created int, exportTo []string, ports ...ServicePort) Service {
	return Service{Kind: KindServiceEntry, Namespace: ns, Name: name, Hostname: host, Ports: ports, ExportTo: exportTo, DeclaredExportTo: exportTo, Created: ts(created), Resolution: "DNS"}
}

func TestEgressHostsImport(t *testing.T) {
	meta := svc("istio-system", "metadata", "metadata.example", 1, []string{"*"}, ServicePort{Number: 80, Protocol: ProtoHTTP})
	own := svc("team-a", "api", "api.example.com", 2, []string{"*"}, ServicePort{Number: 443, Protocol: ProtoTLS})
	visible := ServicesExportedTo([]Service{meta, own}, "team-a")
	sc := NewSidecarScope(sidecarCR("team-a", "default", nil, "./*"), "")
	got := sc.Egress[0].SelectServices(visible, "team-a")
	if len(got) != 1 || got[0].Name != "api" {
		t.Fatalf("./* imports only team-a's entries, got %+v", got)
	}
	sc = NewSidecarScope(sidecarCR("team-a", "default", nil, "./*", "~istio-system/metadata.example", "istio-system/*"), "")
	if got := sc.Egress[0].SelectServices(visible, "team-a"); len(got) != 1 {
		t.Fatalf("exclusion wins over istio-system/*: got %+v", got)
	}
	if NewSidecarScope(nil, "REGISTRY_ONLY").OutboundTrafficPolicy != RegistryOnly {
		t.Error("mesh outboundTrafficPolicy is not used")
	}
}

func outbound(services []Service, policy string, vss ...*networkingv1.VirtualService) *SidecarOutbound {
	return BuildSidecarOutbound(SidecarProxy{Namespace: "team-a", Scope: NewSidecarScope(nil, policy), Services: services, VirtualServices: vss})
}

// Two TCP entries without addresses on one port: one wildcard listener, the older entry's chain
// kept, the other recorded as a conflict, and its host's traffic reaches the older cluster.
func TestTCPOverTCPConflict(t *testing.T) {
	a := svc("team-a", "orders", "orders.example.org", 1, []string{"*"}, ServicePort{Number: 3306, Protocol: ProtoTCP})
	b := svc("team-a", "stats", "stats.example.org", 2, []string{"*"}, ServicePort{Number: 3306, Protocol: ProtoTCP})
	o := outbound([]Service{b, a}, "")
	ls := o.ListenersOnPort(3306)
	if len(ls) != 1 || ls[0].Name != "0.0.0.0_3306" || len(ls[0].Chains) != 1 || ls[0].Default != nil {
		t.Fatalf("listeners: %+v", ls)
	}
	if len(o.Conflicts) != 1 || o.Conflicts[0].Rejected != "ServiceEntry team-a/stats" || o.Conflicts[0].Accepted != "ServiceEntry team-a/orders" {
		t.Fatalf("conflicts: %+v", o.Conflicts)
	}
	r := o.Resolve(Call{Host: "stats.example.org", Port: 3306, Kind: CallTCP})
	if r.Cluster != "outbound|3306||orders.example.org" {
		t.Errorf("stats traffic goes to %q", r.Cluster)
	}
}

// HTTP service and TCP entry on port 80: the HCM chain and the TCP chain as default; plain HTTP
// for the TCP host falls to allow_any, TCP reaches its cluster; REGISTRY_ONLY answers 502.
func TestHTTPAndTCPOnOnePort(t *testing.T) {
	web := Service{Kind: KindService, Namespace: "team-a", Name: "web", Hostname: "web.team-a.svc.cluster.local", Addresses: []string{"10.96.0.10"},
		Ports: []ServicePort{{Number: 80, Protocol: ProtoHTTP}}, ExportTo: []string{"*"}, Created: ts(1), Resolution: "ClusterIP"}
	docs := svc("team-a", "docs", "docs.example.net", 2, []string{"*"}, ServicePort{Number: 80, Protocol: ProtoTCP})
	o := outbound([]Service{web, docs}, "")
	ls := o.ListenersOnPort(80)
	if len(ls) != 1 || len(ls[0].Chains) != 1 || !ls[0].Chains[0].IsHCM() || ls[0].Default == nil || ls[0].Default.Cluster != "outbound|80||docs.example.net" {
		t.Fatalf("listener: %+v", ls)
	}
	if r := o.Resolve(Call{Host: "docs.example.net", Port: 80, Kind: CallHTTP}); r.VirtualHost != VHostAllowAny || r.Cluster != PassthroughCluster {
		t.Errorf("http: %+v", r)
	}
	if r := o.Resolve(Call{Host: "docs.example.net", Port: 80, Kind: CallTCP}); r.Cluster != "outbound|80||docs.example.net" || !r.Default {
		t.Errorf("tcp: %+v", r)
	}
	if r := o.Resolve(Call{Host: "web.team-a.svc.cluster.local", Port: 80, Kind: CallHTTP}); r.Cluster != "outbound|80||web.team-a.svc.cluster.local" {
		t.Errorf("web: %+v", r)
	}
	o = outbound([]Service{web}, RegistryOnly)
	if r := o.Resolve(Call{Host: "unknown.example.org", Port: 80, Kind: CallHTTP}); r.VirtualHost != VHostBlockAll || r.DirectResponse != 502 {
		t.Errorf("REGISTRY_ONLY http: %+v", r)
	}
	if r := o.Resolve(Call{Host: "unknown.example.org", Port: 9999, Kind: CallTCP}); r.Listener != VirtualOutbound || r.Cluster != BlackHoleCluster {
		t.Errorf("REGISTRY_ONLY tcp: %+v", r)
	}
}

// TLS entries get SNI chains on the wildcard; an entry with addresses binds its own listener
// without SNI; a mesh VirtualService tls route replaces the default chain.
func TestTLSChainsAndAddresses(t *testing.T) {
	a := svc("team-a", "a", "a.example.com", 1, []string{"*"}, ServicePort{Number: 443, Protocol: ProtoTLS})
	b := svc("team-a", "b", "b.example.com", 2, []string{"*"}, ServicePort{Number: 443, Protocol: ProtoHTTPS})
	c := svc("team-a", "c", "c.example.com", 3, []string{"*"}, ServicePort{Number: 443, Protocol: ProtoTCP})
	c.Addresses = []string{"240.0.0.10/32"}
	vs := &networkingv1.VirtualService{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "b-via-gw", CreationTimestamp: ts(4)}}
	vs.Spec.Hosts = []string{"b.example.com"}
	vs.Spec.Tls = []*networking.TLSRoute{{Match: []*networking.TLSMatchAttributes{{SniHosts: []string{"b.example.com"}, Port: 443}},
		Route: []*networking.RouteDestination{{Destination: &networking.Destination{Host: "istio-egressgateway.istio-system.svc.cluster.local", Subset: "b", Port: &networking.PortSelector{Number: 443}}}}}}
	o := outbound([]Service{a, b, c}, "", vs)
	if r := o.Resolve(Call{Host: "a.example.com", Port: 443, Kind: CallTLS}); r.Cluster != "outbound|443||a.example.com" || r.Chain == nil || len(r.Chain.SNI) != 1 {
		t.Errorf("a: %+v", r)
	}
	if r := o.Resolve(Call{Host: "b.example.com", Port: 443, Kind: CallTLS}); r.Cluster != "outbound|443|b|istio-egressgateway.istio-system.svc.cluster.local" {
		t.Errorf("b via VirtualService: %+v", r)
	}
	if r := o.Resolve(Call{Host: "c.example.com", Port: 443, Kind: CallTLS, Address: "240.0.0.10"}); r.Listener != "240.0.0.10_443" || r.Cluster != "outbound|443||c.example.com" {
		t.Errorf("c: %+v", r)
	}
	if r := o.Resolve(Call{Host: "other.example.com", Port: 443, Kind: CallTLS}); r.Cluster != PassthroughCluster || !r.Default {
		t.Errorf("unknown SNI: %+v", r)
	}
}

// MySQL and TCP on one port do not mix: the later entry gets nothing there.
func TestWellKnownPortConflict(t *testing.T) {
	a := svc("team-a", "db", "db.example.org", 1, []string{"*"}, ServicePort{Number: 3306, Protocol: ProtoMySQL})
	b := svc("team-a", "web", "web.example.org", 2, []string{"*"}, ServicePort{Number: 3306, Protocol: ProtoUnsupported})
	o := outbound([]Service{a, b}, "")
	if len(o.Conflicts) != 1 || o.Conflicts[0].Kind != "WELL_KNOWN_PORT" {
		t.Fatalf("conflicts: %+v", o.Conflicts)
	}
}
