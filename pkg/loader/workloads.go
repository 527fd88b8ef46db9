package loader

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-egress/kubectl-egress/pkg/rules"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// workloadQuery is one LIST of Deployments and Pods: a label selector ("" = every object) in a
// namespace ("" = all namespaces).
type workloadQuery struct {
	namespace string
	selector  string
}

// workloadQueries returns the Deployment and Pod LISTs the checks need, given the configuration
// already loaded: everything in the Istio namespace (istiod, the default egress gateway, the
// mesh's own workloads) and in the namespaces a command names (extra); elsewhere the workloads
// labelled istio=egressgateway, app=istiod or istio=pilot, those a Gateway's selector selects,
// those deployed for a Kubernetes Gateway API Gateway (labelled with its name),
// in a ServiceEntry's namespace those its workloadSelector selects, and in the namespace of a
// Kubernetes Service whose host a ServiceEntry declares those the Service selects. More than
// maxSelectorQueries queries, or a Gateway with an empty selector (every workload), become one
// cluster-wide LIST.
func workloadQueries(snap *snapshot.Snapshot, extra []string) []workloadQuery {
	everything := []workloadQuery{{}}
	seen := map[workloadQuery]bool{}
	var out []workloadQuery
	add := func(q workloadQuery) {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	nsAll := map[string]bool{snap.IstioNamespace: true}
	for _, ns := range extra {
		if ns != "" {
			nsAll[ns] = true
		}
	}
	for _, ns := range sortedKeys(nsAll) {
		add(workloadQuery{namespace: ns})
	}
	for _, s := range []string{"istio=egressgateway", "app=istiod", "istio=pilot"} {
		add(workloadQuery{selector: s})
	}
	if len(snap.KubeGateways) > 0 {
		// The pods istiod deploys for Gateway API Gateways carry the Gateway's name.
		add(workloadQuery{selector: rules.KubeGatewayNameLabel})
		// Every workload of the namespaces of Istio's Gateways too: a Deployment of the
		// gateway whose pods (and own labels) lack that label is what leaves the Gateway's
		// Service without endpoints, and only a read of its namespace finds it.
		for _, ns := range kubeGatewayNamespaces(snap) {
			if !nsAll[ns] {
				add(workloadQuery{namespace: ns})
			}
		}
	}
	for _, g := range snap.Gateways {
		if len(g.Spec.Selector) == 0 {
			return everything
		}
		add(workloadQuery{selector: labels.SelectorFromSet(g.Spec.Selector).String()})
	}
	for _, se := range snap.ServiceEntries {
		if sel := se.Spec.GetWorkloadSelector().GetLabels(); len(sel) > 0 && !nsAll[se.Namespace] {
			add(workloadQuery{namespace: se.Namespace, selector: labels.SelectorFromSet(sel).String()})
		}
	}
	// A Kubernetes Service whose host a ServiceEntry declares too: a proxy outside the entry's
	// namespace takes the Service, whose endpoints are the pods its selector matches (a
	// Service left behind when the workload moved out of the cluster has none).
	seHosts := map[string]bool{}
	for _, se := range snap.ServiceEntries {
		for _, h := range se.Spec.GetHosts() {
			seHosts[strings.ToLower(h)] = true
		}
	}
	for _, svc := range snap.Services {
		if len(seHosts) == 0 {
			break
		}
		if len(svc.Spec.Selector) > 0 && !nsAll[svc.Namespace] && seHosts[svc.Name+"."+svc.Namespace+".svc.cluster.local"] {
			add(workloadQuery{namespace: svc.Namespace, selector: labels.SelectorFromSet(svc.Spec.Selector).String()})
		}
	}
	if len(out) > maxSelectorQueries {
		return everything
	}
	return out
}

// kubeGatewayNamespaces: the namespaces of the Gateway API Gateways of Istio's gateway class,
// sorted.
func kubeGatewayNamespaces(snap *snapshot.Snapshot) []string {
	nss := map[string]bool{}
	for _, g := range snap.KubeGateways {
		if g != nil && rules.KubeGatewayIstioClass(string(g.Spec.GatewayClassName), snap.GatewayClasses) {
			nss[g.Namespace] = true
		}
	}
	return sortedKeys(nss)
}

// workloadScope records the queries in the snapshot (snapshot.WorkloadsRead).
func workloadScope(qs []workloadQuery) []snapshot.WorkloadQuery {
	out := make([]snapshot.WorkloadQuery, 0, len(qs))
	for _, q := range qs {
		sel, err := labels.ConvertSelectorToLabelsMap(q.selector)
		if err != nil {
			continue // not an equality selector: claims nothing
		}
		out = append(out, snapshot.WorkloadQuery{Namespace: q.namespace, Selector: sel})
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unique flattens the results of several queries, each object once (by namespace and name), in
// namespace/name order.
func unique[T metav1.Object](lists [][]T) []T {
	seen := map[string]bool{}
	var out []T
	for _, l := range lists {
		for _, o := range l {
			k := o.GetNamespace() + "/" + o.GetName()
			if !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].GetNamespace() != out[j].GetNamespace() {
			return out[i].GetNamespace() < out[j].GetNamespace()
		}
		return out[i].GetName() < out[j].GetName()
	})
	return out
}

// requestCounter counts the HTTP requests a load sends.
type requestCounter struct{ n atomic.Int64 }

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		c.n.Add(1)
		return rt.RoundTrip(r)
	})
}

// bodyLimiter caps the API server's response bodies: each at max bytes, and all those being
// read at the same time together at max too (the LISTs run in parallel: a server that streams
// forever on every one of them would otherwise hold max bytes per list). A server that streams
// forever fails the read with errBodyTooLarge instead of filling memory (client-go itself reads
// without a limit). started counts the responses whose headers arrived.
type bodyLimiter struct {
	max      int64
	inFlight atomic.Int64
	started  atomic.Int64
}

func (l *bodyLimiter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil && resp.Body != nil {
			l.started.Add(1)
			resp.Body = &cappedBody{ReadCloser: resp.Body, l: l}
		}
		return resp, err
	})
}

// errBodyTooLarge is returned by a capped response body read past its cap; together says the
// bodies being read at once went past it.
type errBodyTooLarge struct {
	max      int64
	together bool
}

func (e errBodyTooLarge) Error() string {
	if e.together {
		return fmt.Sprintf("responses larger than %s together (--max-input-size)", sizeString(e.max))
	}
	return fmt.Sprintf("a response larger than %s (--max-input-size)", sizeString(e.max))
}

type cappedBody struct {
	io.ReadCloser
	l      *bodyLimiter
	read   int64
	closed bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.read >= b.l.max {
		return 0, errBodyTooLarge{max: b.l.max}
	}
	if b.l.inFlight.Load() >= b.l.max {
		return 0, errBodyTooLarge{max: b.l.max, together: true}
	}
	if int64(len(p)) > b.l.max-b.read {
		p = p[:b.l.max-b.read]
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	b.l.inFlight.Add(int64(n))
	return n, err
}

// Close returns the body's bytes to the in-flight budget (they are decoded by then).
func (b *cappedBody) Close() error {
	if !b.closed {
		b.closed = true
		b.l.inFlight.Add(-b.read)
	}
	return b.ReadCloser.Close()
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
