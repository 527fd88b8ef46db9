package checks

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// AppProtocolOverridesName: a Kubernetes Service port's name declares a protocol of one listener
// class (tcp-ldap: TCP) and its appProtocol one of the other (http), and istiod takes the
// appProtocol: the sidecars' listener for the port is not the one the name promises.
const AppProtocolOverridesName = "APP_PROTOCOL_OVERRIDES_PORT_NAME"

func init() {
	Catalog = append(Catalog, CatalogEntry{Code: AppProtocolOverridesName, Level: LevelWarning,
		Description: "A Kubernetes Service port's name and its appProtocol name protocols that sidecars handle differently (tcp-ldap with appProtocol http, say), and istiod takes the appProtocol. On a port taken as HTTP, connections that are not plaintext HTTP miss the HTTP chain and take the listener's default one: a plain connection to the address dialled, without the Service's cluster or mesh mTLS (ALLOW_ANY), or none at all (REGISTRY_ONLY). On a port taken as TCP, HTTP requests are proxied as bytes, without HTTP routing."})
}

// appProtocolOverride: the protocol port p's name declares (its prefix) and the one its
// appProtocol gives, when they are of different listener classes (HTTP against TCP): istiod
// takes the appProtocol. ok is false when either says nothing istiod knows.
//
// Mirrors istiod pkg/config/kube/conversion.go ConvertProtocol (appProtocol first, then the
// name's prefix) and pilot/pkg/networking/networking.go ModelProtocolToListenerProtocol.
func appProtocolOverride(p corev1.ServicePort) (named, taken string, ok bool) {
	if p.AppProtocol == nil || p.Protocol == corev1.ProtocolUDP {
		return "", "", false
	}
	taken = rules.KubePortProtocol(0, "", p.Protocol, p.AppProtocol)
	named = rules.KubePortProtocol(0, p.Name, p.Protocol, nil)
	cn, ct := rules.ListenerClass(named), rules.ListenerClass(taken)
	if (cn != rules.ClassHTTP && cn != rules.ClassTCP) || (ct != rules.ClassHTTP && ct != rules.ClassTCP) || cn == ct {
		return "", "", false
	}
	return named, taken, true
}

// appProtocolOverrideText: the message and fix of APP_PROTOCOL_OVERRIDES_PORT_NAME for port p of
// Service svc.
func appProtocolOverrideText(svc *corev1.Service, p corev1.ServicePort, named, taken string) (msg, fix string) {
	ref := "Service " + svc.Namespace + "/" + svc.Name
	fate := "connections that are not plaintext HTTP (" + strings.ToLower(named) + ", as the name says) miss the HTTP chain and take the listener's default one: under ALLOW_ANY a plain connection to the address dialled, without the Service's cluster, DestinationRule or mesh mTLS (a STRICT PeerAuthentication at the server refuses it); under REGISTRY_ONLY none at all"
	if rules.ListenerClass(taken) == rules.ClassTCP {
		fate = "HTTP requests are proxied as bytes (tcp_proxy): no HTTP routes, retries, header matches or HTTP telemetry apply to them"
	}
	msg = fmt.Sprintf("%s names port %d %q, which says %s, but its appProtocol %q says %s, and istiod takes the appProtocol: sidecars build a%s %s chain for the port, so %s.", ref, p.Port, p.Name, named, *p.AppProtocol, taken, article(rules.ListenerClass(taken)), rules.ListenerClass(taken), fate)
	fix = fmt.Sprintf("In %s, make port %d's appProtocol say what the port serves (appProtocol: %s, as its name says, or remove appProtocol), or rename the port if appProtocol %q is right.", ref, p.Port, strings.ToLower(named), *p.AppProtocol)
	if what, basis, ok := serverFirstProtocol(rules.ServicePort{Number: uint32(p.Port), TargetPort: uint32(p.TargetPort.IntVal)}); ok && rules.ListenerClass(taken) == rules.ClassTCP {
		// a server-first protocol's port: TCP is what it needs, the name is what to change
		// (blind audit 114 c15, where the fix offered HTTP)
		fix = fmt.Sprintf("In %s, keep appProtocol %q (%s; a server-first protocol needs TCP) and rename port %d to tcp-%s, so its name says the same.", ref, *p.AppProtocol, basis, p.Port, strings.ToLower(what))
	}
	return msg, fix
}

// appProtocolOverrideFindings: APP_PROTOCOL_OVERRIDES_PORT_NAME for every Kubernetes Service port
// whose name and appProtocol disagree (preflight), except where SERVER_FIRST_PORT_NOT_TCP says
// worse of the same port (blind audits 110 c27, 112 c26).
func appProtocolOverrideFindings(snap *snapshot.Snapshot) []PreflightFinding {
	var out []PreflightFinding
	for _, svc := range snap.Services {
		for i, p := range svc.Spec.Ports {
			named, taken, ok := appProtocolOverride(p)
			if !ok {
				continue
			}
			if _, _, first := serverFirstProtocol(rules.ServicePort{Number: uint32(p.Port), Name: p.Name, TargetPort: uint32(p.TargetPort.IntVal)}); first && rules.ListenerClass(taken) == rules.ClassHTTP {
				continue
			}
			msg, fix := appProtocolOverrideText(svc, p, named, taken)
			out = append(out, NewPreflightFinding(AppProtocolOverridesName, CheckPreflight, ResourceRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}, fmt.Sprintf("spec.ports[%d].appProtocol", i), msg, fix))
		}
	}
	return out
}

// appProtocolOverrideWarning: the path's warning for a call to port of the Kubernetes Service s
// whose name and appProtocol disagree (nil when they agree, or s is no Service in the input).
func appProtocolOverrideWarning(snap *snapshot.Snapshot, s rules.Service, port uint32) *Finding {
	if s.Kind != rules.KindService {
		return nil
	}
	for _, svc := range snap.Services {
		if svc.Namespace != s.Namespace || svc.Name != s.Name {
			continue
		}
		for _, p := range svc.Spec.Ports {
			if uint32(p.Port) != port {
				continue
			}
			if named, taken, ok := appProtocolOverride(p); ok {
				msg, fix := appProtocolOverrideText(svc, p, named, taken)
				return &Finding{Code: AppProtocolOverridesName, Level: LevelWarning, Resource: s.Ref(), Message: msg, Fix: fix}
			}
		}
	}
	return nil
}
