package envoy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// Ports istioctl uses (istioctl/pkg/util/constants.go DefaultProxyAdminPort; istiod's
// monitoring port, pilot/cmd/pilot-discovery/app/cmd.go --monitoringAddr).
const (
	ProxyAdminPort      = 15000
	IstiodMonitorPort   = 15014
	ConfigDumpPath      = "/config_dump"
	SyncStatusDebugPath = "/debug/syncz"
)

// PortForwardGet opens a Kubernetes port-forward to port of pod namespace/name (the
// pods/portforward subresource, as kubectl port-forward and istioctl do), sends GET path to it
// and returns the body. It first reads the pod so that the common failures get a clear reason
// (not found, not running, not scheduled to a node, forbidden). ctx bounds the whole exchange.
//
// Mirrors istioctl pkg/kube/client.go portForwardRequest (EnvoyDoWithPort).
func PortForwardGet(ctx context.Context, cfg *rest.Config, namespace, name string, port int, path string) ([]byte, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	pod, err := cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("forbidden to get pod %s/%s (deploy/clusterrole.yaml lists what kubectl-egress needs)", namespace, name)
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("pod %s/%s not found", namespace, name)
	case err != nil:
		return nil, fmt.Errorf("get pod %s/%s: %v", namespace, name, oneLine(err))
	case pod.Spec.NodeName == "":
		return nil, fmt.Errorf("pod %s/%s is not scheduled to a node", namespace, name)
	case pod.Status.Phase != corev1.PodRunning:
		return nil, fmt.Errorf("pod %s/%s is %s, not Running", namespace, name, pod.Status.Phase)
	}
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(name).SubResource("portforward")
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, req.URL())
	stop, ready := make(chan struct{}), make(chan struct{})
	defer close(stop)
	var errOut strings.Builder
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, &errOut)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-done:
		if err == nil {
			err = fmt.Errorf("port-forward ended")
		}
		if apierrors.IsForbidden(err) || strings.Contains(err.Error(), "forbidden") {
			return nil, fmt.Errorf("forbidden to port-forward to pod %s/%s (needs create on pods/portforward, as in deploy/clusterrole.yaml)", namespace, name)
		}
		return nil, fmt.Errorf("port-forward to %s/%s:%d: %v", namespace, name, port, oneLine(err))
	case <-ctx.Done():
		return nil, fmt.Errorf("port-forward to %s/%s:%d: %v", namespace, name, port, ctx.Err())
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		return nil, fmt.Errorf("port-forward to %s/%s:%d: no local port", namespace, name, port)
	}
	return httpGet(ctx, fmt.Sprintf("http://127.0.0.1:%d%s", ports[0].Local, path))
}

// MaxBodyBytes caps every HTTP body read (a proxy's config dump, istiod's sync status): a
// response larger than this is an error, not an unbounded read (--max-input-size).
var MaxBodyBytes int64 = 128 << 20

func httpGet(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", redact(u), oneLine(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", redact(u), err)
	}
	if int64(len(body)) > MaxBodyBytes {
		return nil, fmt.Errorf("GET %s: the response is larger than %d bytes (--max-input-size)", redact(u), MaxBodyBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", redact(u), resp.Status, oneLine(fmt.Errorf("%s", strings.TrimSpace(string(body)))))
	}
	return body, nil
}

func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Path
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// Sync states per xDS type, as istioctl proxy-status prints them.
const (
	Synced  = "SYNCED"
	Stale   = "STALE"
	NotSent = "NOT SENT"
	Error   = "ERROR"
)

// SyncStatus is one proxy's entry of istiod's /debug/syncz.
type SyncStatus struct {
	ClusterID    string `json:"cluster_id,omitempty"`
	Proxy        string `json:"proxy"`
	ProxyType    string `json:"proxy_type,omitempty"`
	IstioVersion string `json:"istio_version,omitempty"`
	// Nonces sent and acknowledged per type.
	ClusterSent    string                  `json:"cluster_sent,omitempty"`
	ClusterAcked   string                  `json:"cluster_acked,omitempty"`
	ListenerSent   string                  `json:"listener_sent,omitempty"`
	ListenerAcked  string                  `json:"listener_acked,omitempty"`
	RouteSent      string                  `json:"route_sent,omitempty"`
	RouteAcked     string                  `json:"route_acked,omitempty"`
	EndpointSent   string                  `json:"endpoint_sent,omitempty"`
	EndpointAcked  string                  `json:"endpoint_acked,omitempty"`
	Resources      map[string]ResourceSync `json:"resources,omitempty"`
	IstiodInstance string                  `json:"-"`
}

// ResourceSync is the per-type-URL detail of a syncz entry.
type ResourceSync struct {
	Sent      string    `json:"sent,omitempty"`
	Acked     string    `json:"acked,omitempty"`
	SentTime  time.Time `json:"sentTime,omitempty"`
	LastError string    `json:"lastError,omitempty"`
}

// Type URLs of the four xDS types proxy-status shows.
var typeURLs = map[string]string{
	"CDS": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
	"LDS": "type.googleapis.com/envoy.config.listener.v3.Listener",
	"RDS": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
	"EDS": "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
}

// State returns the sync state of one xDS type (CDS, LDS, RDS, EDS): ERROR when the last
// response was a NACK, NOT SENT when nothing was sent, SYNCED when the acknowledged nonce is the
// sent one, else STALE.
//
// Mirrors istiod pilot/pkg/xds/statusgen.go debugSyncStatus (istio-semantics.md R7.5).
func (s SyncStatus) State(typ string) string {
	sent, acked := "", ""
	switch typ {
	case "CDS":
		sent, acked = s.ClusterSent, s.ClusterAcked
	case "LDS":
		sent, acked = s.ListenerSent, s.ListenerAcked
	case "RDS":
		sent, acked = s.RouteSent, s.RouteAcked
	case "EDS":
		sent, acked = s.EndpointSent, s.EndpointAcked
	}
	if r, ok := s.Resources[typeURLs[typ]]; ok {
		if r.LastError != "" {
			return Error
		}
		if r.Sent != "" {
			sent, acked = r.Sent, r.Acked
		}
	}
	switch {
	case sent == "":
		return NotSent
	case sent == acked:
		return Synced
	}
	return Stale
}

// ParseSyncz reads istiod's /debug/syncz JSON (an array of SyncStatus).
func ParseSyncz(data []byte) ([]SyncStatus, error) {
	var out []SyncStatus
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("/debug/syncz: %v", err)
	}
	return out, nil
}

// FindSync returns the entry for the proxy "<pod>.<namespace>" (istiod's proxy ID prefix).
func FindSync(all []SyncStatus, pod, namespace string) *SyncStatus {
	id := pod + "." + namespace
	for i := range all {
		if all[i].Proxy == id || strings.HasPrefix(all[i].Proxy, id) {
			return &all[i]
		}
	}
	return nil
}

// IstiodSyncz reads /debug/syncz from istiod: from address ("host:port", --istiod-address)
// when given, else through a port-forward to a running istiod pod of the revision in
// istioNamespace (label app=istiod; istio.io/rev=<rev> unless rev is "" or default) on the
// monitoring port 15014.
//
// Mirrors istioctl's AllDiscoveryDo (pkg/kube/client.go), which port-forwards to the istiod
// monitoring port for HTTP debug endpoints.
func IstiodSyncz(ctx context.Context, cfg *rest.Config, istioNamespace, rev, address string) ([]SyncStatus, string, error) {
	if address != "" {
		body, err := httpGet(ctx, "http://"+address+SyncStatusDebugPath)
		if err != nil {
			return nil, address, err
		}
		s, err := ParseSyncz(body)
		return s, address, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", err
	}
	sel := "app=istiod"
	if rev != "" && rev != "default" {
		sel += ",istio.io/rev=" + rev
	}
	pods, err := cs.CoreV1().Pods(istioNamespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	switch {
	case apierrors.IsForbidden(err):
		return nil, "", fmt.Errorf("forbidden to list pods in %s (deploy/clusterrole.yaml lists what kubectl-egress needs)", istioNamespace)
	case err != nil:
		return nil, "", fmt.Errorf("list istiod pods: %v", oneLine(err))
	}
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "" {
			running = append(running, p)
		}
	}
	if len(running) == 0 {
		return nil, "", fmt.Errorf("no running istiod pod (%s) in %s", sel, istioNamespace)
	}
	sort.Slice(running, func(i, j int) bool { return running[i].Name < running[j].Name })
	var all []SyncStatus
	var firstErr error
	for _, p := range running {
		body, err := PortForwardGet(ctx, cfg, p.Namespace, p.Name, IstiodMonitorPort, SyncStatusDebugPath)
		if err == nil {
			var s []SyncStatus
			if s, err = ParseSyncz(body); err == nil {
				for i := range s {
					s[i].IstiodInstance = p.Name
				}
				all = append(all, s...)
				continue
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if all == nil && firstErr != nil {
		return nil, running[0].Name, firstErr
	}
	return all, running[0].Name, nil
}
