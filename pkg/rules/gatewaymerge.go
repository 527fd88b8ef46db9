package rules

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// GatewayServer is one Gateway server as a gateway proxy's merged configuration holds it: the
// listener port it serves on (the Service target port when the gateway Service translates the
// server port) and, when istiod skips it, why.
type GatewayServer struct {
	Gateway *networkingv1.Gateway
	Index   int
	Server  *networking.Server
	// Port is the listener port; RouteName the server's RDS name ("" for non-HTTP servers).
	Port      uint32
	RouteName string
	// Dropped says why istiod skips the server ("" when kept); Conflict names the kept server it
	// conflicts with ("namespace/gateway#index").
	Dropped  string
	Conflict string
}

// Ref returns "namespace/gateway#index".
func (s GatewayServer) Ref() string { return GatewayName(s.Gateway) + "#" + strconv.Itoa(s.Index) }

// Reasons a merged gateway skips a server.
const (
	DropDuplicateTLSHost = "DUPLICATE_TLS_HOST"
	DropProtocolConflict = "PROTOCOL_CONFLICT"
	DropNoRouteName      = "SECOND_NON_HTTP_SERVER"
	DropDuplicateHTTPS   = "DUPLICATE_HTTPS_ROUTE_NAME"
	DropTLSWithoutTLS    = "TLS_PORT_WITHOUT_TLS_SETTINGS"
	// DropNoServicePort: a Gateway generated from a Kubernetes Gateway API listener whose port
	// is not a port of the gateway's Service (istiod resolves it to no listener port).
	DropNoServicePort = "NOT_A_SERVICE_PORT"
)

// GatewayPorts translates the server ports of the Gateways applying to one gateway proxy into
// listener ports.
type GatewayPorts struct {
	// Legacy maps a server port to the targetPort of the oldest Service selecting the proxy that
	// has that port (Gateways that select the proxy by labels; a port absent is used as is).
	Legacy map[uint32]uint32
	// Services are the Services selecting the proxy, each with its ports' targetPorts (Gateways
	// generated from the Kubernetes Gateway API, which name their Service).
	Services []ServicePorts
}

// ServicePorts is one Service selecting a gateway proxy: its host name, namespace, and
// targetPort by port.
type ServicePorts struct {
	Host, Namespace string
	Ports           map[uint32]uint32
}

// resolve mirrors istiod pilot/pkg/model/gateway.go resolvePorts: a Gateway selecting by labels
// takes the legacy translation (the port itself when no Service has it); a Gateway naming its
// Services (internal.istio.io/gateway-service) takes the targetPort of every such Service in its
// parent's namespace with that port, and nothing when none has it.
func (p GatewayPorts) resolve(g *networkingv1.Gateway, port uint32) []uint32 {
	hosts, internal := g.Annotations[AnnotationGatewayService]
	if !internal {
		if t, ok := p.Legacy[port]; ok && t != 0 {
			return []uint32{t}
		}
		return []uint32{port}
	}
	known := strings.Split(hosts, ",")
	ns := gatewayParentNamespace(g)
	var out []uint32
	for _, sp := range p.Services {
		if sp.Namespace != ns || !slices.Contains(known, sp.Host) {
			continue
		}
		if t, ok := sp.Ports[port]; ok && t != 0 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// gatewayParentNamespace: the namespace of the Gateway API object an internal Gateway comes
// from (internal.istio.io/parent-namespace), else the Gateway's own.
func gatewayParentNamespace(g *networkingv1.Gateway) string {
	if ns := g.Annotations[AnnotationParentNamespace]; ns != "" {
		return ns
	}
	return g.Namespace
}

// GatewayRDSName returns the RDS route name of a gateway server on listener port port:
// http.<port>[.<bind>] for HTTP servers, https.<server port>.<port name>.<gateway>.<namespace>[.<bind>]
// for HTTPS servers that terminate TLS, "" otherwise.
//
// Mirrors istiod pilot/pkg/model/gateway.go gatewayRDSRouteName.
func GatewayRDSName(s *networking.Server, port uint32, gw *networkingv1.Gateway) string {
	bind := ""
	if s.GetBind() != "" {
		bind = "." + s.GetBind()
	}
	proto := ParseProtocol(s.GetPort().GetProtocol())
	if ListenerClass(proto) == ClassHTTP {
		return "http." + strconv.Itoa(int(port)) + bind
	}
	if proto == ProtoHTTPS && !isPassthrough(s) {
		return "https." + strconv.Itoa(int(s.GetPort().GetNumber())) + "." + s.GetPort().GetName() + "." + gw.Name + "." + gw.Namespace + bind
	}
	return ""
}

func isPassthrough(s *networking.Server) bool {
	m := s.GetTls().GetMode()
	return s.GetTls() != nil && (m == networking.ServerTLSSettings_PASSTHROUGH || m == networking.ServerTLSSettings_AUTO_PASSTHROUGH)
}

// isHTTPServer: HTTP, HTTP2, GRPC, or HTTPS that terminates TLS (gateway.IsHTTPServer).
func isHTTPServer(s *networking.Server) bool {
	proto := ParseProtocol(s.GetPort().GetProtocol())
	return ListenerClass(proto) == ClassHTTP || (proto == ProtoHTTPS && !isPassthrough(s))
}

// isTLSServer: TLS settings on a non-HTTP port (gateway.IsTLSServer).
func isTLSServer(s *networking.Server) bool {
	return s.GetTls() != nil && ListenerClass(ParseProtocol(s.GetPort().GetProtocol())) != ClassHTTP
}

// SNIHostsForServer returns the server's hosts without namespace parts, sorted and unique: the
// SNI match of its filter chain (gateway.go GetSNIHostsForServer).
func SNIHostsForServer(s *networking.Server) []string {
	var out []string
	for _, h := range s.GetHosts() {
		if _, name, ok := strings.Cut(h, "/"); ok {
			h = name
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// HostsCrashIstiod reports whether a Gateway server's hosts make istiod 1.31 panic while it merges
// the gateway (index out of range): an entry "*/*" followed by an entry with a namespace part.
// sanitizeServerHostNamespace replaces the list with ["*"] at "*/*" and then writes the later
// entry's index into the shortened list.
//
// Mirrors istiod pilot/pkg/model/gateway.go sanitizeServerHostNamespace (istio 1.31 line).
func HostsCrashIstiod(hosts []string) bool {
	star := slices.Index(hosts, "*/*")
	if star < 0 {
		return false
	}
	for _, h := range hosts[star+1:] {
		if strings.Contains(h, "/") {
			return true
		}
	}
	return false
}

// sanitizedHosts mirrors sanitizeServerHostNamespace for the duplicate check: "./h" becomes
// "<ns>/h", "*/h" becomes "h", "*/*" makes the list ["*"].
func sanitizedHosts(hosts []string, ns string) []string {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		p, name, ok := strings.Cut(h, "/")
		switch {
		case !ok:
			out = append(out, h)
		case p == ".":
			out = append(out, ns+"/"+name)
		case p == "*" && name == "*":
			return []string{"*"}
		case p == "*":
			out = append(out, name)
		default:
			out = append(out, h)
		}
	}
	return out
}

// MergeGatewayServers merges the servers of the Gateways selecting one gateway proxy as istiod
// does, Gateways oldest first (then by name and namespace), servers in order: a server with TLS
// settings whose hosts repeat a host an earlier TLS server on the same port and bind claimed is
// skipped whole; on a port that already has a plaintext server, only HTTP servers join it on the
// same bind (a second TCP server, or a non-HTTP one next to HTTP, is skipped); on a port held by
// TLS servers, a second HTTPS server with the same route name, or a server without TLS settings
// on the same bind, is skipped. targetPort maps a server port to the listener port (0 or absent:
// the server port).
//
// Mirrors istiod pilot/pkg/model/gateway.go mergeGateways, CheckDuplicates and
// canMergeProtocols (no QUIC, no credential checks).
func MergeGatewayServers(gws []*networkingv1.Gateway, targetPorts GatewayPorts) []GatewayServer {
	sorted := slices.Clone(gws)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Namespace < b.Namespace
	})
	type plain struct {
		proto, bind string
		ref         string
	}
	ports := map[uint32]bool{}
	plainText := map[uint32]plain{}
	tlsHosts := map[uint32]map[string]string{}
	tlsOwner := map[uint32]map[string]string{}
	routeNames := map[string]string{}
	nonPlainBinds := map[uint32]map[string]bool{}
	var out []GatewayServer
	for _, g := range sorted {
		for i, s := range g.Spec.GetServers() {
			if s.GetPort() == nil {
				continue
			}
			resolved := targetPorts.resolve(g, s.GetPort().GetNumber())
			if len(resolved) == 0 {
				out = append(out, GatewayServer{Gateway: g, Index: i, Server: s, Port: s.GetPort().GetNumber(), Dropped: DropNoServicePort})
				continue
			}
			for _, port := range resolved {
				gs := GatewayServer{Gateway: g, Index: i, Server: s, Port: port, RouteName: GatewayRDSName(s, port, g)}
				proto := ParseProtocol(s.GetPort().GetProtocol())
				bind := s.GetBind()
				if s.GetTls() != nil {
					if tlsHosts[port] == nil {
						tlsHosts[port], tlsOwner[port] = map[string]string{}, map[string]string{}
					}
					hosts := sanitizedHosts(s.GetHosts(), g.Namespace)
					var dup []string
					for _, h := range hosts {
						if b, ok := tlsHosts[port][h]; ok && b == bind {
							dup = append(dup, h)
						}
					}
					if len(dup) > 0 {
						gs.Dropped, gs.Conflict = DropDuplicateTLSHost, tlsOwner[port][dup[0]]
						out = append(out, gs)
						continue
					}
					for _, h := range hosts {
						tlsHosts[port][h], tlsOwner[port][h] = bind, gs.Ref()
					}
				}
				switch cur, hasPlain := plainText[port]; {
				case !ports[port]:
					ports[port] = true
					if !isTLSServer(s) {
						plainText[port] = plain{proto, bind, gs.Ref()}
					}
					if isHTTPServer(s) {
						routeNames[gs.RouteName] = gs.Ref()
					}
				case hasPlain:
					mergeable := (ListenerClass(cur.proto) == ClassHTTP || cur.proto == proto) && ListenerClass(proto) == ClassHTTP
					switch {
					case !mergeable && cur.bind == bind:
						gs.Dropped, gs.Conflict = DropProtocolConflict, cur.ref
					case gs.RouteName == "" && cur.bind == bind:
						gs.Dropped, gs.Conflict = DropNoRouteName, cur.ref
					}
				default:
					if !isTLSServer(s) {
						plainText[port] = plain{proto, bind, gs.Ref()}
						if isHTTPServer(s) {
							routeNames[gs.RouteName] = gs.Ref()
						}
						break
					}
					if isHTTPServer(s) {
						if gs.RouteName == "" {
							gs.Dropped = DropNoRouteName
							break
						}
						if ref, ok := routeNames[gs.RouteName]; ok {
							gs.Dropped, gs.Conflict = DropDuplicateHTTPS, ref
							break
						}
						routeNames[gs.RouteName] = gs.Ref()
					}
					if nonPlainBinds[port] == nil {
						nonPlainBinds[port] = map[string]bool{}
					}
					newBind := !nonPlainBinds[port][bind]
					nonPlainBinds[port][bind] = true
					if s.GetTls() == nil && !newBind {
						gs.Dropped = DropTLSWithoutTLS
					}
				}
				out = append(out, gs)
			}
		}
	}
	return out
}
