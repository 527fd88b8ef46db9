// Package snapshot holds the one in-memory picture of a mesh that every check reads.
//
// Data flows one way: a loader (pkg/loader: live cluster or manifest files) fills a Snapshot,
// pure checks (pkg/checks) read it, printers (pkg/printers) render what the checks found.
// Checks never know where the data came from; Source is for display only.
package snapshot

import (
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	meshv1alpha1 "istio.io/api/mesh/v1alpha1"

	"github.com/kubectl-egress/kubectl-egress/pkg/envoy"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	networkingv1alpha3 "istio.io/client-go/pkg/apis/networking/v1alpha3"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// Kind names used in Unknown and in evidence.
const (
	KindNamespace       = "Namespace"
	KindServiceEntry    = "ServiceEntry"
	KindVirtualService  = "VirtualService"
	KindDestinationRule = "DestinationRule"
	KindGateway         = "Gateway"
	KindSidecar         = "Sidecar"
	KindWorkloadEntry   = "WorkloadEntry"
	KindEnvoyFilter     = "EnvoyFilter"
	KindService         = "Service"
	KindDeployment      = "Deployment"
	KindPod             = "Pod"
	KindConfigMap       = "ConfigMap"
	// KindGatewayAPI is the Unknown key for Kubernetes Gateway API objects that could not be
	// read (GatewayAPIUnread); KindGatewayAPICRD for the CRDs that decide whether istiod reads
	// the TLSRoutes, TCPRoutes and GRPCRoutes that were read (GatewayAPICRDsUnread).
	KindGatewayAPI    = "GatewayAPI"
	KindGatewayAPICRD = "GatewayAPICRD"
)

// Snapshot is everything the checks may read. Slices are in no particular order; checks sort
// where istiod's behaviour depends on order (creation time, then name, then namespace).
type Snapshot struct {
	// Source says where the data came from: "cluster <context or server>" or "files <paths>".
	Source string
	// ObjectFiles maps "Kind/namespace/name" of each object read from a manifest file to that
	// file (offline loads only; standard input is "-"): where a finding's resource is written.
	ObjectFiles map[string]string
	// IstioNamespace is the namespace of istiod and of the mesh ConfigMap (--istio-namespace).
	IstioNamespace string
	// Revision is the istiod revision asked for with --revision ("" = default).
	Revision string

	Namespaces       []*corev1.Namespace
	ServiceEntries   []*networkingv1.ServiceEntry
	VirtualServices  []*networkingv1.VirtualService
	DestinationRules []*networkingv1.DestinationRule
	Gateways         []*networkingv1.Gateway
	Sidecars         []*networkingv1.Sidecar
	WorkloadEntries  []*networkingv1.WorkloadEntry
	EnvoyFilters     []*networkingv1alpha3.EnvoyFilter
	Services         []*corev1.Service
	Deployments      []*appsv1.Deployment
	Pods             []*corev1.Pod

	// GatewayAPI are the Kubernetes Gateway API Gateways and routes read (not modelled yet; see
	// GatewayAPIObject). GatewayAPIUnread says why some could not be read ("" when all were, or
	// the API is not installed).
	GatewayAPI       []GatewayAPIObject
	GatewayAPIUnread string
	// GatewayAPIUnreadKinds are the kinds GatewayAPIUnread is about ("HTTPRoute",
	// "ReferenceGrant", ...; nil when the served kinds could not be discovered at all).
	GatewayAPIUnreadKinds []string
	// KubeGateways are the Gateway API Gateways read, whole (rules.ConvertKubeGateways predicts
	// the internal Istio Gateways istiod generates from them).
	KubeGateways []*gatewayv1.Gateway
	// GatewayClasses are the Gateway API GatewayClasses read (their controllerName decides
	// which Gateways istiod serves).
	GatewayClasses []*gatewayv1.GatewayClass
	// HTTPRoutes are the Gateway API HTTPRoutes read, whole (rules.ConvertHTTPRoutes predicts
	// the VirtualServices istiod generates from them), and ReferenceGrants the grants that let
	// a route name a backend in another namespace.
	HTTPRoutes      []*gatewayv1.HTTPRoute
	ReferenceGrants []*gatewayv1beta1.ReferenceGrant
	// GRPCRoutes are the Gateway API GRPCRoutes read, whole (rules.ConvertHTTPAndGRPCRoutes
	// merges them with the HTTPRoutes as istiod does).
	GRPCRoutes []*gatewayv1.GRPCRoute
	// TLSRoutes and TCPRoutes are the Gateway API TLSRoutes and TCPRoutes read, whole, in any
	// served version (rules.ConvertTLSRoutes and rules.ConvertTCPRoutes predict the
	// VirtualServices istiod generates from them).
	TLSRoutes []*gatewayv1.TLSRoute
	TCPRoutes []*gatewayv1.TCPRoute
	// GatewayAPICRDs are the Gateway API CRDs read, by the kind they define (live: the route
	// kinds istiod has a minimum version for; files: CustomResourceDefinition objects of the
	// group). A kind not in the map was not read: its CRD is assumed recent enough.
	// GatewayAPICRDsUnread says why they could not be read live ("" when they were).
	GatewayAPICRDs       map[string]GatewayAPICRD
	GatewayAPICRDsUnread string

	// Secrets are the Secrets read, by "namespace/name": their names only (a manifest's Secret
	// is kept by name, and a live load reads Secret metadata, never their data): whether the
	// credentialName a gateway's server or DestinationRule names exists where the proxy reads it.
	// SecretNamespaces are the namespaces whose Secrets were all read ("" = every namespace);
	// SecretsUnread says why others were not ("" when nothing was refused). A credential in a
	// namespace not read is not checked.
	Secrets          map[string]bool
	SecretNamespaces map[string]bool
	SecretsUnread    string

	// PeerAuthentications are the namespace-wide PeerAuthentications (no selector), for the one
	// thing checks take from them: whether auto mTLS applies to a service of a namespace.
	// PeerAuthenticationsRead: they were read (manifests holding one, or a live load that could
	// list them).
	PeerAuthentications     []PeerAuthentication
	PeerAuthenticationsRead bool
	// PeerAuthenticationsUnread says why a live load could not read them ("" when it did, or
	// for manifests).
	PeerAuthenticationsUnread string

	// MeshConfigs maps a revision ("" for the default ConfigMap `istio`, "canary" for
	// `istio-canary`) to the parsed `mesh` key of that ConfigMap in IstioNamespace.
	MeshConfigs map[string]*MeshConfigSource

	// ConfigMapData maps the name of each ConfigMap in IstioNamespace to its data: what
	// istiod's environment reads through valueFrom.configMapKeyRef.
	ConfigMapData map[string]map[string]string

	// Unknown maps a kind to why it could not be read (for example "forbidden to list
	// servicesentries.networking.istio.io"). Checks that need the kind report "unknown".
	Unknown map[string]string

	// Assumptions carries what flags say where manifests cannot (offline mode).
	Assumptions Assumptions

	// LoadWarnings are problems in manifest input that --lenient let through ("path:line: what");
	// Ignored counts, by "apiVersion Kind", the objects of kinds the checks do not read.
	LoadWarnings []string
	Ignored      map[string]int

	// Live maps a workload "namespace/name" to what its running proxy holds and what istiod
	// says of its sync (seed §3.7 steps d and e); nil when live evidence was not read.
	Live map[string]*ProxyEvidence

	// Load says how a live load went (zero for files).
	Load LoadStats

	// ViewOf is the snapshot this one is a revision view of (pkg/model View), ViewRev that
	// revision's key; nil for a snapshot as loaded.
	ViewOf  *Snapshot
	ViewRev string

	// derived is what pkg/model built from this snapshot (see Derived).
	derived *derived
}

// LoadStats describes a live load: the HTTP requests sent to the API server (LISTs and their
// pages) and how many label-selector queries read Deployments and Pods.
type LoadStats struct {
	Requests        int64
	WorkloadQueries int
	// WorkloadScope are those queries: Deployments and Pods were read in Namespace ("" = every
	// namespace) carrying every label of Selector (empty = all).
	WorkloadScope []WorkloadQuery
}

// WorkloadQuery is one LIST of Deployments and Pods of a live load.
type WorkloadQuery struct {
	Namespace string
	Selector  map[string]string
}

// WorkloadsRead reports whether every Deployment and Pod in namespace ns carrying the labels sel
// is in the snapshot: always for manifests; live, when a query covered them (their namespace or
// every namespace, with a selector sel implies).
func (s *Snapshot) WorkloadsRead(ns string, sel map[string]string) bool {
	if s.Load.WorkloadQueries == 0 {
		return true
	}
	if s.Unknown[KindDeployment] != "" || s.Unknown[KindPod] != "" {
		return false // a query was refused (or read only some namespaces)
	}
	for _, q := range s.Load.WorkloadScope {
		if q.Namespace != "" && q.Namespace != ns {
			continue
		}
		all := true
		for k, v := range q.Selector {
			if sel[k] != v {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// ProxyEvidence is the live state of one proxy: its Envoy config dump and its istiod sync
// status, each with where it came from, or why it could not be read.
type ProxyEvidence struct {
	// Pod is "namespace/name" of the pod read ("" for a saved dump).
	Pod string
	// DumpSource is "port-forward ns/pod:15000" or "file PATH"; DumpErr why there is no dump.
	DumpSource string
	Dump       *envoy.Dump
	DumpErr    string
	// Sync is istiod's /debug/syncz entry for the pod; Istiod the istiod instance or address
	// asked; SyncErr why there is none.
	Sync    *envoy.SyncStatus
	Istiod  string
	SyncErr string
}

// MeshConfigSource is a parsed mesh config and the ConfigMap it came from.
type MeshConfigSource struct {
	// Ref is "namespace/name" of the ConfigMap.
	Ref string
	// Config is the `mesh` key parsed into istio.io/api MeshConfig (unset fields stay unset;
	// defaults are applied by the checks that read them, see pkg/istio/meshdefaults.go).
	Config *meshv1alpha1.MeshConfig
}

// Assumptions are values given on the command line for what the input cannot say.
type Assumptions struct {
	// FilterGatewayClusters, when non-nil, is the PILOT_FILTER_GATEWAY_CLUSTER_CONFIG value to
	// use when no istiod Deployment serving the gateway is in the snapshot
	// (--filter-gateway-clusters).
	FilterGatewayClusters *bool
	// SyntheticGateway is true when the loader added an `istio: egressgateway` workload in
	// IstioNamespace because no gateway Deployment was among the files.
	SyntheticGateway bool
	// SyntheticKubeGateways are the Services and Deployments ("namespace/name", one name for
	// both) the loader added for managed Kubernetes Gateway API Gateways whose Service was not
	// among the files: what istiod would deploy for them.
	SyntheticKubeGateways []string
	// PredictedAddresses are the ServiceEntry hosts ("namespace/name/host") whose
	// status.addresses PredictAllocations guessed: manifests carry no status, and istiod's
	// allocator writes one address per host once the entry is applied.
	PredictedAddresses map[string]bool
}

// NewEmpty returns a snapshot with its maps allocated.
func NewEmpty(source, istioNamespace, revision string) *Snapshot {
	return &Snapshot{
		Source:         source,
		IstioNamespace: istioNamespace,
		Revision:       revision,
		MeshConfigs:    map[string]*MeshConfigSource{},
		Unknown:        map[string]string{},
	}
}

type namespaceIndexKey struct{}

// Namespace returns the Namespace object named ns, or nil (an index built on first use).
func (s *Snapshot) Namespace(ns string) *corev1.Namespace {
	idx := s.Derived(namespaceIndexKey{}, func() any {
		m := make(map[string]*corev1.Namespace, len(s.Namespaces))
		for _, n := range s.Namespaces {
			if _, ok := m[n.Name]; !ok {
				m[n.Name] = n
			}
		}
		return m
	}).(map[string]*corev1.Namespace)
	return idx[ns]
}

// SecretState is what the snapshot says of a Secret: SecretFound, SecretMissing (its namespace
// was read and it is not there) or SecretNotRead.
type SecretState int

const (
	SecretNotRead SecretState = iota
	SecretFound
	SecretMissing
)

// Secret says whether Secret ns/name exists.
func (s *Snapshot) Secret(ns, name string) SecretState {
	switch {
	case s.Secrets[ns+"/"+name]:
		return SecretFound
	case s.SecretNamespaces[""] || s.SecretNamespaces[ns]:
		return SecretMissing
	}
	return SecretNotRead
}

// SecretKnownMissing reports whether Secret ns/name is known not to exist (its namespace was
// read and it is not there).
func (s *Snapshot) SecretKnownMissing(ns, name string) bool {
	return s.Secret(ns, name) == SecretMissing
}

// SecretsNamed returns the namespaces of the Secrets read named name, sorted.
func (s *Snapshot) SecretsNamed(name string) []string {
	var out []string
	for k := range s.Secrets {
		if ns, n, ok := strings.Cut(k, "/"); ok && n == name {
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

// AddSecret records Secret ns/name as read.
func (s *Snapshot) AddSecret(ns, name string) {
	if s.Secrets == nil {
		s.Secrets = map[string]bool{}
	}
	s.Secrets[ns+"/"+name] = true
}

// PeerAuthentication is a namespace-wide PeerAuthentication: its namespace, name, mTLS mode
// ("" for UNSET) and creation time.
type PeerAuthentication struct {
	Namespace, Name, Mode string
	Created               time.Time
}

// AddPeerAuthentication records a namespace-wide PeerAuthentication.
func (s *Snapshot) AddPeerAuthentication(ns, name, mode string, created time.Time) {
	s.PeerAuthentications = append(s.PeerAuthentications, PeerAuthentication{Namespace: ns, Name: name, Mode: mode, Created: created})
	s.PeerAuthenticationsRead = true
}

// NamespaceMTLSMode is the mTLS mode the namespace-wide PeerAuthentications give services of
// namespace ns: the oldest one of ns, unless UNSET, else the oldest one of the root namespace
// ("" when none says; the PeerAuthentication that decided, "namespace/name").
//
// Mirrors istiod pilot/pkg/model/authentication.go GetNamespaceMutualTLSMode (namespace level,
// then mesh level).
func (s *Snapshot) NamespaceMTLSMode(ns, root string) (mode, ref string) {
	oldest := func(in string) *PeerAuthentication {
		var o *PeerAuthentication
		for i := range s.PeerAuthentications {
			p := &s.PeerAuthentications[i]
			if p.Namespace == in && (o == nil || p.Created.Before(o.Created) || p.Created.Equal(o.Created) && p.Name < o.Name) {
				o = p
			}
		}
		return o
	}
	if p := oldest(ns); p != nil && p.Mode != "" && p.Mode != "UNSET" {
		return p.Mode, p.Namespace + "/" + p.Name
	}
	if p := oldest(root); p != nil && p.Mode != "" && p.Mode != "UNSET" {
		return p.Mode, p.Namespace + "/" + p.Name
	}
	return "", ""
}
