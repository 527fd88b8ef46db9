package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// The Istio kinds are most of what a live load reads (10,000 ServiceEntries are about 8 MB of
// JSON), so their LIST responses are decoded here rather than by the typed clientset: the
// clientset decodes each object's spec with the old jsonpb, which parses the spec's bytes
// three times over, and keeps managedFields until listAll drops them. Here each page is parsed
// once into objects whose spec and status stay raw, the spec and status are decoded with
// protojson into the same istio.io/api messages (unknown fields discarded, as the clientset's
// jsonpb allows them), and managedFields are skipped. The objects are the clientset's types,
// identical field for field (TestIstioListDecodesLikeClientset).

// wireList is one page of a LIST response.
type wireList struct {
	Metadata metav1.ListMeta `json:"metadata"`
	Items    []wireObject    `json:"items"`
}

// wireObject is one Istio object of a LIST page, spec and status not yet decoded.
type wireObject struct {
	metav1.TypeMeta
	Metadata wireMeta        `json:"metadata"`
	Spec     json.RawMessage `json:"spec"`
	Status   json.RawMessage `json:"status"`
}

// wireMeta is ObjectMeta without managedFields (the field below shadows ObjectMeta's, so its
// entries are skipped rather than decoded and dropped).
type wireMeta struct {
	metav1.ObjectMeta
	ManagedFields skippedJSON `json:"managedFields"`
}

// skippedJSON accepts any JSON value and keeps nothing.
type skippedJSON struct{}

func (*skippedJSON) UnmarshalJSON([]byte) error { return nil }

var wireUnmarshal = protojson.UnmarshalOptions{DiscardUnknown: true}

// decodeMessage decodes a raw spec or status into m; absent and null leave m empty. What
// protojson refuses is decoded again the clientset's way (the message's own UnmarshalJSON, the
// old jsonpb): it accepts values that the API server's schema admits and protojson does not,
// such as a duration written "1m" rather than "60s".
func decodeMessage(raw json.RawMessage, m proto.Message) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if wireUnmarshal.Unmarshal(raw, m) == nil {
		return nil
	}
	proto.Reset(m)
	return json.Unmarshal(raw, m)
}

// newIstioObject makes the typed object for one wire object and returns it with its spec and
// status messages, to be decoded in place.
type newIstioObject[T any] func(metav1.TypeMeta, metav1.ObjectMeta) (obj *T, spec, status proto.Message)

// listIstio lists resource (a networking.istio.io kind, in namespace ns or all namespaces when
// ns is "") through rc in pages of istioPageSize, as the pager of listAll does: an expired
// continue token restarts the LIST without pages. Each object counts against the load's object
// budget.
func listIstio[T any](ctx context.Context, rc rest.Interface, resource, ns string, newObj newIstioObject[T]) ([]*T, error) {
	var out []*T
	cont := ""
	limit := int64(istioPageSize)
	for {
		req := rc.Get().Resource(resource)
		if ns != "" {
			req = req.Namespace(ns)
		}
		if limit > 0 {
			req = req.Param("limit", strconv.FormatInt(limit, 10))
		}
		if cont != "" {
			req = req.Param("continue", cont)
		}
		res := req.Do(ctx)
		body, err := res.Raw()
		if err != nil {
			// Raw keeps the unstructured error; Error decodes the server's Status, whose reason
			// says a continue token is too old (Expired, 410), as a typed client's List does.
			if e := res.Error(); cont != "" && apierrors.IsResourceExpired(e) {
				out, cont, limit = out[:0], "", 0
				continue
			}
			return nil, err
		}
		items, next, err := decodePage(ctx, body, resource, newObj)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		cont = next
		if cont == "" || limit == 0 {
			return out, nil
		}
	}
}

// decodePage decodes one page of a LIST response of resource: its objects and the continue
// token of the next page ("" on the last).
func decodePage[T any](ctx context.Context, body []byte, resource string, newObj newIstioObject[T]) ([]*T, string, error) {
	var page wireList
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, "", fmt.Errorf("cannot decode the list of %s: %w", resource, err)
	}
	out := make([]*T, 0, len(page.Items))
	for i := range page.Items {
		if err := takeObject(ctx); err != nil {
			return nil, "", err
		}
		w := &page.Items[i]
		obj, spec, status := newObj(w.TypeMeta, w.Metadata.ObjectMeta)
		if err := decodeMessage(w.Spec, spec); err != nil {
			return nil, "", fmt.Errorf("cannot decode the spec of %s %s/%s: %w", w.Kind, w.Metadata.Namespace, w.Metadata.Name, err)
		}
		if err := decodeMessage(w.Status, status); err != nil {
			return nil, "", fmt.Errorf("cannot decode the status of %s %s/%s: %w", w.Kind, w.Metadata.Namespace, w.Metadata.Name, err)
		}
		out = append(out, obj)
	}
	return out, page.Metadata.Continue, nil
}

// The networking.istio.io/v1 kinds a live load reads.
func newServiceEntry(tm metav1.TypeMeta, om metav1.ObjectMeta) (*networkingv1.ServiceEntry, proto.Message, proto.Message) {
	o := &networkingv1.ServiceEntry{TypeMeta: tm, ObjectMeta: om}
	return o, &o.Spec, &o.Status
}

func newVirtualService(tm metav1.TypeMeta, om metav1.ObjectMeta) (*networkingv1.VirtualService, proto.Message, proto.Message) {
	o := &networkingv1.VirtualService{TypeMeta: tm, ObjectMeta: om}
	return o, &o.Spec, &o.Status
}

func newDestinationRule(tm metav1.TypeMeta, om metav1.ObjectMeta) (*networkingv1.DestinationRule, proto.Message, proto.Message) {
	o := &networkingv1.DestinationRule{TypeMeta: tm, ObjectMeta: om}
	return o, &o.Spec, &o.Status
}

func newGateway(tm metav1.TypeMeta, om metav1.ObjectMeta) (*networkingv1.Gateway, proto.Message, proto.Message) {
	o := &networkingv1.Gateway{TypeMeta: tm, ObjectMeta: om}
	return o, &o.Spec, &o.Status
}

func newSidecar(tm metav1.TypeMeta, om metav1.ObjectMeta) (*networkingv1.Sidecar, proto.Message, proto.Message) {
	o := &networkingv1.Sidecar{TypeMeta: tm, ObjectMeta: om}
	return o, &o.Spec, &o.Status
}

func newWorkloadEntry(tm metav1.TypeMeta, om metav1.ObjectMeta) (*networkingv1.WorkloadEntry, proto.Message, proto.Message) {
	o := &networkingv1.WorkloadEntry{TypeMeta: tm, ObjectMeta: om}
	return o, &o.Spec, &o.Status
}
