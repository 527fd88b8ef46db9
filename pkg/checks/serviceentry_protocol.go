package checks

import (
	"fmt"
	"strings"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// PreflightHTTPOnTCPPort: a ServiceEntry declares a well-known database or messaging port
// (PostgreSQL's 5432, MySQL's 3306, ...) as HTTP, HTTP2 or GRPC, so its clients' traffic, which
// is not HTTP, never takes the entry's chain.
const PreflightHTTPOnTCPPort = "HTTP_ON_WELL_KNOWN_TCP_PORT"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: PreflightHTTPOnTCPPort, Level: LevelWarning,
		Description: "A ServiceEntry declares a well-known port of a protocol that is not HTTP (PostgreSQL 5432, MySQL 3306, Redis 6379, ...) as HTTP, HTTP2 or GRPC. Sidecars build an HTTP chain for the port, which takes plaintext HTTP only: the database or broker connections fall to the listener's default chain, which drops them under REGISTRY_ONLY (BlackHoleCluster) and sends them out directly, without the entry, under ALLOW_ANY."})
}

// wellKnownNonHTTPPorts are ports whose protocol is never HTTP in practice, with its name.
var wellKnownNonHTTPPorts = map[uint32]string{
	22: "SSH", 25: "SMTP", 1433: "SQL Server", 1521: "Oracle", 2181: "ZooKeeper", 3306: "MySQL",
	5432: "PostgreSQL", 5671: "AMQP over TLS", 5672: "AMQP", 6379: "Redis", 6380: "Redis over TLS", 9042: "Cassandra", 9092: "Kafka",
	11211: "memcached", 27017: "MongoDB",
}

// httpOnTCPPortFindings: HTTP_ON_WELL_KNOWN_TCP_PORT for every ServiceEntry port numbered like a
// well-known database or messaging port and declared HTTP-family (preflight). istiod builds an
// HTTP connection manager chain for an HTTP-family port of a service (listener.go
// buildSidecarOutboundListener: the port's protocol decides the chain, not the traffic), and
// traffic that is not HTTP takes the listener's default chain (buildOutboundCatchAllNetworkFiltersOnly:
// BlackHoleCluster under REGISTRY_ONLY, PassthroughCluster otherwise). Blind audit 37 #17.
func httpOnTCPPortFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, se := range snap.ServiceEntries {
		for i, p := range se.Spec.GetPorts() {
			what, ok := wellKnownNonHTTPPorts[p.GetNumber()]
			proto := strings.ToUpper(p.GetProtocol())
			if !ok || !rules.IsHTTPProtocol(proto) {
				continue
			}
			ref := "ServiceEntry " + se.Namespace + "/" + se.Name
			out = append(out, NewPreflightFinding(PreflightHTTPOnTCPPort, CheckPreflight, ResourceRef{Kind: "ServiceEntry", Namespace: se.Namespace, Name: se.Name}, fmt.Sprintf("spec.ports[%d].protocol", i),
				fmt.Sprintf("%s declares port %d (%s's port) as %s: sidecars build an HTTP chain for it, which takes plaintext HTTP only, so %s connections take the listener's default chain, which drops them under REGISTRY_ONLY and sends them out directly, without the entry, under ALLOW_ANY.", ref, p.GetNumber(), what, proto, what),
				fmt.Sprintf("In %s, declare port %d with protocol TCP (name it tcp-...), or TLS if the clients speak TLS there.", ref, p.GetNumber())))
		}
	}
	return out
}

// serverFirstPorts are the well-known ports of protocols whose server speaks first: a client
// waits for the greeting, so a listener that waits for the client's first bytes never gets any.
var serverFirstPorts = map[uint32]string{21: "FTP", 25: "SMTP", 110: "POP3", 143: "IMAP", 587: "SMTP", 3306: "MySQL"}

// serverFirstNames are the words of a port name that name a server-first protocol.
var serverFirstNames = map[string]string{"mysql": "MySQL", "mariadb": "MariaDB", "smtp": "SMTP", "ftp": "FTP", "pop3": "POP3", "imap": "IMAP"}

// serverFirstProtocol: the server-first protocol port p serves, and what says so: its number,
// its numeric targetPort (a Service on 3307 for a pod's 3306), or a word of its name
// ("tcp-mysql", "db-mariadb"; not when the name's own prefix declares HTTP, as in
// "http-mysql-admin", a web console). Blind audits 110 c27 (appProtocol http over the name
// tcp-mysql on 3310) and 111 c18 (3307 to targetPort 3306).
func serverFirstProtocol(p rules.ServicePort) (what, basis string, ok bool) {
	if what, ok = serverFirstPorts[p.Number]; ok {
		return what, what + "'s port", true
	}
	if what, ok = serverFirstPorts[p.TargetPort]; ok {
		return what, fmt.Sprintf("its targetPort %d is %s's port", p.TargetPort, what), true
	}
	prefix, _, _ := strings.Cut(p.Name, "-")
	if rules.ListenerClass(rules.ParseProtocol(prefix)) == rules.ClassHTTP {
		return "", "", false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(p.Name), func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if what, ok = serverFirstNames[w]; ok {
			return what, fmt.Sprintf("its name %q says %s", p.Name, what), true
		}
	}
	return "", "", false
}

// serverFirstSniffed: the ServiceEntry the sidecar v holds for host declares port, a server-first
// protocol's well-known port, without a protocol: istiod sniffs it (ServiceEntries get no
// well-known-port default, unlike Kubernetes Services), so the sidecar waits for the client's
// first bytes while the client waits for the server's greeting (blind audit 110 c22, c23, where
// the path said OK). The entry, the port's index and the protocol's name.
//
// Mirrors istiod pilot/pkg/serviceregistry/serviceentry/conversion.go convertPort
// (protocol.Parse) and listener.go buildSidecarOutboundListener (sniffing for unsupported
// protocols); Istio's protocol selection docs on server-first protocols.
func serverFirstSniffed(v SidecarView, host string, port uint32) (s rules.Service, index int, what string, ok bool) {
	if v.Outbound == nil {
		return s, 0, "", false
	}
	s, ok = v.Outbound.ScopeService(host)
	if !ok || (s.Kind != rules.KindServiceEntry && s.Kind != rules.KindService) {
		return s, 0, "", false
	}
	for i, p := range s.Ports {
		if p.Number == port {
			if what, _, ok = serverFirstProtocol(p); !ok {
				return s, 0, "", false
			}
			// sniffed (a ServiceEntry port without a protocol; a Kubernetes Service port on 25
			// or 3306 is TCP then), or HTTP-family: an HTTP connection manager waits for a
			// request (blind audit 111 c20: appProtocol http on a Service's SMTP port)
			return s, i, what, p.Protocol == rules.ProtoUnsupported || rules.ListenerClass(p.Protocol) == rules.ClassHTTP
		}
	}
	return s, 0, "", false
}

// serverFirstSniffedText is the message and fix of serverFirstSniffed.
func serverFirstSniffedText(v SidecarView, s rules.Service, host string, port uint32, what string) (msg, fix string) {
	fate := "no timeout (meshConfig.protocolDetectionTimeout is 0 by default): the connection hangs until the client gives up"
	if t := v.Flags.MeshConfig.GetProtocolDetectionTimeout().AsDuration(); t > 0 {
		fate = fmt.Sprintf("meshConfig.protocolDetectionTimeout (%s): every connection stalls that long before it is forwarded as TCP", t)
	}
	basis := what + "'s port"
	if p, ok := portDeclared(s, port); ok {
		_, basis, _ = serverFirstProtocol(p)
	}
	msg = fmt.Sprintf("%s declares port %d (%s) without a protocol, so the sidecar sniffs it: it waits for the client's first bytes to tell HTTP from TCP. The %s server speaks first and its client waits for the greeting, so neither sends anything: %s.", s.Ref(), port, basis, what, fate)
	if p, ok := portDeclared(s, port); ok && s.Kind == rules.KindService && p.AppProtocol != "" && p.Protocol == rules.ProtoUnsupported {
		// an appProtocol istiod does not know replaces the name and leaves the port sniffed
		// (kube conversion.go ConvertProtocol; blind audit 114 c17, where the name was blamed)
		msg = fmt.Sprintf("%s sets appProtocol %q on port %d (%s), which istiod reads instead of the port's name %q and does not know, so the sidecar sniffs the port: it waits for the client's first bytes to tell HTTP from TCP. The %s server speaks first and its client waits for the greeting, so neither sends anything: %s.", s.Ref(), p.AppProtocol, port, basis, p.Name, what, fate)
		fix = fmt.Sprintf("In %s, set port %d's appProtocol to tcp (or remove it, so that the name %q decides), as Istio's protocol selection docs ask for server-first protocols (https://istio.io/latest/docs/ops/configuration/traffic-management/protocol-selection/#server-first-protocols).", s.Ref(), port, p.Name)
		return msg, fix
	}
	how := "with protocol TCP (name it tcp-" + strings.ToLower(what) + ")"
	if s.Kind == rules.KindService {
		how = "as TCP (name it tcp-" + strings.ToLower(what) + ", or set appProtocol tcp)"
	}
	fix = fmt.Sprintf("In %s, declare port %d %s, as Istio's protocol selection docs ask for server-first protocols (https://istio.io/latest/docs/ops/configuration/traffic-management/protocol-selection/#server-first-protocols).", s.Ref(), port, how)
	if p, ok := portDeclared(s, port); ok && p.Protocol != rules.ProtoUnsupported {
		from := "its protocol " + p.Protocol
		if s.Kind == rules.KindService {
			from = "its port's appProtocol"
			if prefix, _, _ := strings.Cut(p.Name, "-"); rules.ListenerClass(rules.ParseProtocol(prefix)) == rules.ClassHTTP {
				from = fmt.Sprintf("its port's name %q", p.Name)
			}
		}
		msg = fmt.Sprintf("%s declares port %d (%s) as %s (%s), so the sidecar's listener for it is an HTTP connection manager, which waits for the client's request. The %s server speaks first and its client waits for the greeting, so neither sends anything: the connection hangs until the client gives up.", s.Ref(), port, basis, p.Protocol, from, what)
		fix = fmt.Sprintf("In %s, declare port %d as TCP (a ServiceEntry: protocol TCP; a Service: name it tcp-%s and set appProtocol tcp, or remove an appProtocol that says HTTP), as Istio's protocol selection docs ask for server-first protocols (https://istio.io/latest/docs/ops/configuration/traffic-management/protocol-selection/#server-first-protocols).", s.Ref(), port, strings.ToLower(what))
	}
	return msg, fix
}

// serverFirstField is the field of s that makes port index i a port the sidecar does not forward
// as TCP: a ServiceEntry port's protocol; a Service port's name, or its appProtocol.
func serverFirstField(s rules.Service, i int) string {
	if s.Kind != rules.KindService || i >= len(s.Ports) {
		return fmt.Sprintf("spec.ports[%d].protocol", i)
	}
	if s.Ports[i].AppProtocol != "" && rules.ListenerClass(rules.ParseProtocol(strings.SplitN(s.Ports[i].Name, "-", 2)[0])) != rules.ClassHTTP {
		// appProtocol decides (an unknown one leaves the port sniffed: blind audit 114 c17)
		return fmt.Sprintf("spec.ports[%d].appProtocol", i)
	}
	if prefix, _, _ := strings.Cut(s.Ports[i].Name, "-"); s.Ports[i].Protocol == rules.ProtoUnsupported || rules.ListenerClass(rules.ParseProtocol(prefix)) == rules.ClassHTTP {
		// sniffed: neither name nor appProtocol says a protocol; the name is what to set
		return fmt.Sprintf("spec.ports[%d].name", i)
	}
	return fmt.Sprintf("spec.ports[%d].appProtocol", i)
}

// serverFirstServiceFindings: SERVER_FIRST_PORT_NOT_TCP for every Kubernetes Service port
// numbered for a server-first protocol that istiod takes as HTTP (its name or appProtocol):
// every sidecar's listener for it is an HTTP connection manager (preflight; the traced calls
// are those of ServiceEntries, the path says it for a Service it is asked about).
func serverFirstServiceFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, svc := range snap.Services {
		s := rules.KubeService(svc, nil)
		for i, p := range s.Ports {
			what, _, ok := serverFirstProtocol(p)
			if !ok || (p.Protocol != rules.ProtoUnsupported && rules.ListenerClass(p.Protocol) != rules.ClassHTTP) {
				continue
			}
			msg, fix := serverFirstSniffedText(SidecarView{}, s, s.Hostname, p.Number, what)
			out = append(out, NewPreflightFinding(ListenerServerFirstSniffed, CheckPreflight, ResourceRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}, serverFirstField(s, i), msg, fix))
		}
	}
	return out
}
