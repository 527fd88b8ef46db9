package loader

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

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
// and in a ServiceEntry's namespace those its workloadSelector selects. More than
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
	if len(out) > maxSelectorQueries {
		return everything
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

// limitBodies caps every API server response body at max bytes: a server that streams
// forever fails the read with errBodyTooLarge instead of filling memory (client-go itself reads
// without a limit).
func limitBodies(max int64) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil && resp.Body != nil {
				resp.Body = &cappedBody{ReadCloser: resp.Body, left: max, max: max}
			}
			return resp, err
		})
	}
}

// errBodyTooLarge is returned by a capped response body read past its cap.
type errBodyTooLarge struct{ max int64 }

func (e errBodyTooLarge) Error() string {
	return fmt.Sprintf("a response larger than %s (--max-input-size)", sizeString(e.max))
}

type cappedBody struct {
	io.ReadCloser
	left, max int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errBodyTooLarge{b.max}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
