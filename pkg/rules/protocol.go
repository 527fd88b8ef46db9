package rules

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Port protocols as istiod names them (pkg/config/protocol/instance.go), upper-cased. The empty
// string is istiod's UnsupportedProtocol: the port is sniffed on sidecars.
const (
	ProtoHTTP        = "HTTP"
	ProtoHTTP2       = "HTTP2"
	ProtoHTTPProxy   = "HTTP_PROXY"
	ProtoGRPC        = "GRPC"
	ProtoGRPCWeb     = "GRPC-WEB"
	ProtoHTTPS       = "HTTPS"
	ProtoTLS         = "TLS"
	ProtoTCP         = "TCP"
	ProtoMongo       = "MONGO"
	ProtoRedis       = "REDIS"
	ProtoMySQL       = "MYSQL"
	ProtoUDP         = "UDP"
	ProtoUnsupported = ""
)

// ParseProtocol returns the protocol istiod gives a ServiceEntry port or a Gateway server port:
// a case-insensitive match of a known name, else "" (unsupported: sniffed). The port name is
// never consulted for ServiceEntries (seed 001; istio-semantics.md R4.1).
//
// Mirrors istiod pkg/config/protocol/instance.go Parse, as used by
// pilot/pkg/serviceregistry/serviceentry/conversion.go convertPort.
func ParseProtocol(s string) string {
	switch strings.ToLower(s) {
	case "tcp", "udp", "grpc", "grpc-web", "http", "http_proxy", "http2", "https", "tls", "mongo", "redis", "mysql":
		return strings.ToUpper(s)
	}
	return ProtoUnsupported
}

// wellKnownTCPPorts are the ports istiod treats as TCP when a Kubernetes Service port's name and
// appProtocol say nothing (SMTP, DNS, MySQL, MongoDB).
var wellKnownTCPPorts = map[int32]bool{25: true, 53: true, 3306: true, 27017: true}

// KubePortProtocol returns the protocol istiod gives a Kubernetes Service port: UDP stays UDP;
// appProtocol, when set, is used instead of the port name (kubernetes.io/h2c → HTTP2,
// kubernetes.io/ws → HTTP, kubernetes.io/wss → HTTPS); a "grpc-web" prefix is GRPC-WEB; else the
// text before the first "-" is parsed; an unknown result on port 25, 53, 3306 or 27017 is TCP,
// elsewhere "" (sniffed).
//
// Mirrors istiod pkg/config/kube/conversion.go ConvertProtocol (istio-semantics.md R4.2).
func KubePortProtocol(port int32, name string, proto corev1.Protocol, appProtocol *string) string {
	if proto == corev1.ProtocolUDP {
		return ProtoUDP
	}
	n := name
	if appProtocol != nil {
		n = *appProtocol
		switch n {
		case "kubernetes.io/h2c":
			return ProtoHTTP2
		case "kubernetes.io/ws":
			return ProtoHTTP
		case "kubernetes.io/wss":
			return ProtoHTTPS
		}
	}
	if len(n) >= len("grpc-web") && strings.EqualFold(n[:len("grpc-web")], "grpc-web") {
		return ProtoGRPCWeb
	}
	if i := strings.IndexByte(n, '-'); i >= 0 {
		n = n[:i]
	}
	p := ParseProtocol(n)
	if p == ProtoUnsupported && wellKnownTCPPorts[port] {
		return ProtoTCP
	}
	return p
}

// Listener classes of a port protocol on a sidecar.
const (
	ClassHTTP = "HTTP"
	ClassTCP  = "TCP"
	ClassAuto = "AUTO"
	ClassNone = ""
)

// ListenerClass returns the sidecar listener class of a port protocol: HTTP for HTTP, HTTP2,
// HTTP_PROXY, GRPC and GRPC-WEB; TCP for TCP, HTTPS, TLS, MONGO, REDIS and MYSQL; AUTO (protocol
// sniffing) for an unsupported protocol; "" for UDP, which gets no listener.
//
// Mirrors istiod pilot/pkg/networking/networking.go ModelProtocolToListenerProtocol.
func ListenerClass(p string) string {
	switch p {
	case ProtoHTTP, ProtoHTTP2, ProtoHTTPProxy, ProtoGRPC, ProtoGRPCWeb:
		return ClassHTTP
	case ProtoTCP, ProtoHTTPS, ProtoTLS, ProtoMongo, ProtoRedis, ProtoMySQL:
		return ClassTCP
	case ProtoUnsupported:
		return ClassAuto
	}
	return ClassNone
}

// IsTLSProtocol reports whether p is HTTPS or TLS (pkg/config/protocol Instance.IsTLS): such
// ports get SNI filter chains on sidecars.
func IsTLSProtocol(p string) bool { return p == ProtoHTTPS || p == ProtoTLS }

// IsHTTP2Protocol reports whether istiod makes the upstream connection HTTP/2 for p
// (pkg/config/protocol Instance.IsHTTP2: HTTP2, GRPC, GRPC-WEB).
func IsHTTP2Protocol(p string) bool { return p == ProtoHTTP2 || p == ProtoGRPC || p == ProtoGRPCWeb }
