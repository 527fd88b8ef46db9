package loader

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	istioscheme "istio.io/client-go/pkg/clientset/versioned/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// istioListsFromFixtures groups every Istio v1 object of the path fixtures (and of
// testdata/istiolist.yaml, which sets the fields the fixtures leave out: status conditions,
// durations, maps) by kind into LIST response bodies, each object with managedFields as the API
// server returns them.
func istioListsFromFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	files, _ := filepath.Glob("../checks/testdata/paths/*.yaml")
	files = append(files, "testdata/istiolist.yaml")
	items := map[string][]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
				continue
			}
			if obj["apiVersion"] != "networking.istio.io/v1" {
				continue
			}
			md, _ := obj["metadata"].(map[string]any)
			if md == nil {
				continue
			}
			md["managedFields"] = []any{map[string]any{"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:spec": map[string]any{".": map[string]any{}}}}}
			md["creationTimestamp"] = "2026-12-05T09:00:00Z"
			md["uid"] = "0b4f7c1e-0000-4000-8000-000000000001"
			md["resourceVersion"] = "42"
			kind, _ := obj["kind"].(string)
			items[kind] = append(items[kind], obj)
		}
	}
	lists := map[string][]byte{}
	for kind, objs := range items {
		body, err := json.Marshal(map[string]any{"apiVersion": "networking.istio.io/v1", "kind": kind + "List",
			"metadata": map[string]any{"resourceVersion": "42"}, "items": objs})
		if err != nil {
			t.Fatal(err)
		}
		lists[kind] = body
	}
	return lists
}

// sameObject fails unless the object decoded by decodePage equals the clientset's, field for
// field, with the clientset's managedFields dropped as listAll drops them.
func sameObject(t *testing.T, name string, gotTM, wantTM metav1.TypeMeta, gotOM, wantOM metav1.ObjectMeta, gotSpec, wantSpec, gotStatus, wantStatus proto.Message) {
	t.Helper()
	wantOM.ManagedFields = nil
	if gotTM != wantTM {
		t.Errorf("%s: TypeMeta %+v, clientset %+v", name, gotTM, wantTM)
	}
	if !reflect.DeepEqual(gotOM, wantOM) {
		t.Errorf("%s: ObjectMeta %+v, clientset %+v", name, gotOM, wantOM)
	}
	if !proto.Equal(gotSpec, wantSpec) {
		t.Errorf("%s: spec %v, clientset %v", name, gotSpec, wantSpec)
	}
	if !proto.Equal(gotStatus, wantStatus) {
		t.Errorf("%s: status %v, clientset %v", name, gotStatus, wantStatus)
	}
}

// TestIstioListDecodesLikeClientset: the live load's own decoding of Istio LIST pages gives the
// objects the typed clientset gives for the same bytes.
func TestIstioListDecodesLikeClientset(t *testing.T) {
	lists := istioListsFromFixtures(t)
	decode := istioscheme.Codecs.UniversalDeserializer()
	ctx := context.Background()
	seen := 0
	for kind, body := range lists {
		want, _, err := decode.Decode(body, nil, nil)
		if err != nil {
			t.Fatalf("%s: clientset decode: %v", kind, err)
		}
		switch l := want.(type) {
		case *networkingv1.ServiceEntryList:
			got, _, err := decodePage(ctx, body, "serviceentries", newServiceEntry)
			if err != nil || len(got) != len(l.Items) {
				t.Fatalf("%s: %d objects, err %v; clientset %d", kind, len(got), err, len(l.Items))
			}
			for i, w := range l.Items {
				sameObject(t, kind+" "+w.Name, got[i].TypeMeta, w.TypeMeta, got[i].ObjectMeta, w.ObjectMeta, &got[i].Spec, &w.Spec, &got[i].Status, &w.Status)
			}
			seen += len(got)
		case *networkingv1.VirtualServiceList:
			got, _, err := decodePage(ctx, body, "virtualservices", newVirtualService)
			if err != nil || len(got) != len(l.Items) {
				t.Fatalf("%s: %d objects, err %v; clientset %d", kind, len(got), err, len(l.Items))
			}
			for i, w := range l.Items {
				sameObject(t, kind+" "+w.Name, got[i].TypeMeta, w.TypeMeta, got[i].ObjectMeta, w.ObjectMeta, &got[i].Spec, &w.Spec, &got[i].Status, &w.Status)
			}
			seen += len(got)
		case *networkingv1.DestinationRuleList:
			got, _, err := decodePage(ctx, body, "destinationrules", newDestinationRule)
			if err != nil || len(got) != len(l.Items) {
				t.Fatalf("%s: %d objects, err %v; clientset %d", kind, len(got), err, len(l.Items))
			}
			for i, w := range l.Items {
				sameObject(t, kind+" "+w.Name, got[i].TypeMeta, w.TypeMeta, got[i].ObjectMeta, w.ObjectMeta, &got[i].Spec, &w.Spec, &got[i].Status, &w.Status)
			}
			seen += len(got)
		case *networkingv1.GatewayList:
			got, _, err := decodePage(ctx, body, "gateways", newGateway)
			if err != nil || len(got) != len(l.Items) {
				t.Fatalf("%s: %d objects, err %v; clientset %d", kind, len(got), err, len(l.Items))
			}
			for i, w := range l.Items {
				sameObject(t, kind+" "+w.Name, got[i].TypeMeta, w.TypeMeta, got[i].ObjectMeta, w.ObjectMeta, &got[i].Spec, &w.Spec, &got[i].Status, &w.Status)
			}
			seen += len(got)
		case *networkingv1.SidecarList:
			got, _, err := decodePage(ctx, body, "sidecars", newSidecar)
			if err != nil || len(got) != len(l.Items) {
				t.Fatalf("%s: %d objects, err %v; clientset %d", kind, len(got), err, len(l.Items))
			}
			for i, w := range l.Items {
				sameObject(t, kind+" "+w.Name, got[i].TypeMeta, w.TypeMeta, got[i].ObjectMeta, w.ObjectMeta, &got[i].Spec, &w.Spec, &got[i].Status, &w.Status)
			}
			seen += len(got)
		case *networkingv1.WorkloadEntryList:
			got, _, err := decodePage(ctx, body, "workloadentries", newWorkloadEntry)
			if err != nil || len(got) != len(l.Items) {
				t.Fatalf("%s: %d objects, err %v; clientset %d", kind, len(got), err, len(l.Items))
			}
			for i, w := range l.Items {
				sameObject(t, kind+" "+w.Name, got[i].TypeMeta, w.TypeMeta, got[i].ObjectMeta, w.ObjectMeta, &got[i].Spec, &w.Spec, &got[i].Status, &w.Status)
			}
			seen += len(got)
		default:
			t.Fatalf("%s: unexpected %T", kind, want)
		}
	}
	if len(lists) != 6 || seen < 100 {
		t.Fatalf("compared %d kinds, %d objects: the fixtures no longer cover the six kinds", len(lists), seen)
	}
}

// TestIstioListPageErrors: a page that is not a list, and a spec of the wrong shape, are errors
// that name the resource or the object, and the object budget holds.
func TestIstioListPageErrors(t *testing.T) {
	ctx := context.Background()
	if _, _, err := decodePage(ctx, []byte(`{"items": 3}`), "serviceentries", newServiceEntry); err == nil || !strings.Contains(err.Error(), "list of serviceentries") {
		t.Errorf("not a list: %v", err)
	}
	bad := `{"items": [{"kind": "ServiceEntry", "metadata": {"name": "a", "namespace": "n"}, "spec": {"hosts": "x"}}]}`
	if _, _, err := decodePage(ctx, []byte(bad), "serviceentries", newServiceEntry); err == nil || !strings.Contains(err.Error(), "ServiceEntry n/a") {
		t.Errorf("bad spec: %v", err)
	}
	two := `{"metadata": {"continue": "tok"}, "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}`
	bctx := context.WithValue(ctx, objectBudgetKey{}, &objectBudget{max: 1})
	if _, _, err := decodePage(bctx, []byte(two), "serviceentries", newServiceEntry); err == nil {
		t.Error("two objects under a budget of one: no error")
	}
	got, next, err := decodePage(ctx, []byte(two), "serviceentries", newServiceEntry)
	if err != nil || len(got) != 2 || next != "tok" || got[1].Name != "b" {
		t.Errorf("page of two: %d objects, continue %q, err %v", len(got), next, err)
	}
}

// TestListIstioPagesAndRestarts drives listIstio against an HTTP server that answers the LIST of
// ServiceEntries in two pages, then, in a second run, answers the continued LIST with 410 Gone (an
// expired continue token): the pager follows the continue token, and on 410 restarts the LIST
// without pages and returns each object once. The live suite cannot create the 20,000 objects a
// second page needs; this drives the same client-go REST client over HTTP.
func TestListIstioPagesAndRestarts(t *testing.T) {
	item := func(name string) string {
		return `{"apiVersion":"networking.istio.io/v1","kind":"ServiceEntry","metadata":{"name":"` + name +
			`","namespace":"ns"},"spec":{"hosts":["` + name + `.example.com"],"resolution":"DNS"}}`
	}
	list := func(cont string, names ...string) string {
		items := make([]string, len(names))
		for i, n := range names {
			items[i] = item(n)
		}
		return `{"apiVersion":"networking.istio.io/v1","kind":"ServiceEntryList","metadata":{"continue":"` + cont + `"},"items":[` + strings.Join(items, ",") + `]}`
	}
	for _, tc := range []struct {
		name    string
		expire  bool
		want    []string
		queries []string
	}{
		{"two pages", false, []string{"a", "b", "c"}, []string{"limit=20000", "continue=tok1&limit=20000"}},
		{"continue expired", true, []string{"a", "b", "c"}, []string{"limit=20000", "continue=tok1&limit=20000", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var queries []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/apis/networking.istio.io/v1/serviceentries" {
					http.NotFound(w, r)
					return
				}
				q := r.URL.Query()
				queries = append(queries, q.Encode())
				w.Header().Set("Content-Type", "application/json")
				switch {
				case q.Get("continue") == "" && q.Get("limit") != "":
					fmt.Fprint(w, list("tok1", "a"))
				case q.Get("continue") == "tok1" && tc.expire:
					w.WriteHeader(http.StatusGone)
					fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"The provided continue parameter is too old"}`)
				case q.Get("continue") == "tok1":
					fmt.Fprint(w, list("", "b", "c"))
				default:
					fmt.Fprint(w, list("", "a", "b", "c")) // the whole list, unpaged
				}
			}))
			defer srv.Close()
			ic, err := istioclient.NewForConfig(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			got, err := listIstio(context.Background(), ic.NetworkingV1().RESTClient(), "serviceentries", "", newServiceEntry)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, se := range got {
				names = append(names, se.Name)
				if len(se.Spec.GetHosts()) != 1 || se.Spec.GetHosts()[0] != se.Name+".example.com" {
					t.Errorf("%s: spec not decoded: %v", se.Name, se.Spec.GetHosts())
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("objects %v, want %v", names, tc.want)
			}
			if !slices.Equal(queries, tc.queries) {
				t.Errorf("requests %q, want %q", queries, tc.queries)
			}
		})
	}
}

// TestDecodeIstioLikeDecodeAs: a manifest's Istio object decoded by decodeIstio (protojson, as
// the live load) equals the object decodeAs gives (the typed object's own JSON decoding, jsonpb
// for the spec), managedFields apart, for every Istio object of the path fixtures and of
// testdata/istiolist.yaml.
func TestDecodeIstioLikeDecodeAs(t *testing.T) {
	seen := 0
	for kind, body := range istioListsFromFixtures(t) {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatal(err)
		}
		for _, js := range list.Items {
			switch kind {
			case "ServiceEntry":
				sameDecoding(t, kind, js, newServiceEntry, func(o *networkingv1.ServiceEntry) (metav1.TypeMeta, metav1.ObjectMeta, proto.Message, proto.Message) {
					return o.TypeMeta, o.ObjectMeta, &o.Spec, &o.Status
				})
			case "VirtualService":
				sameDecoding(t, kind, js, newVirtualService, func(o *networkingv1.VirtualService) (metav1.TypeMeta, metav1.ObjectMeta, proto.Message, proto.Message) {
					return o.TypeMeta, o.ObjectMeta, &o.Spec, &o.Status
				})
			case "DestinationRule":
				sameDecoding(t, kind, js, newDestinationRule, func(o *networkingv1.DestinationRule) (metav1.TypeMeta, metav1.ObjectMeta, proto.Message, proto.Message) {
					return o.TypeMeta, o.ObjectMeta, &o.Spec, &o.Status
				})
			case "Gateway":
				sameDecoding(t, kind, js, newGateway, func(o *networkingv1.Gateway) (metav1.TypeMeta, metav1.ObjectMeta, proto.Message, proto.Message) {
					return o.TypeMeta, o.ObjectMeta, &o.Spec, &o.Status
				})
			case "Sidecar":
				sameDecoding(t, kind, js, newSidecar, func(o *networkingv1.Sidecar) (metav1.TypeMeta, metav1.ObjectMeta, proto.Message, proto.Message) {
					return o.TypeMeta, o.ObjectMeta, &o.Spec, &o.Status
				})
			case "WorkloadEntry":
				sameDecoding(t, kind, js, newWorkloadEntry, func(o *networkingv1.WorkloadEntry) (metav1.TypeMeta, metav1.ObjectMeta, proto.Message, proto.Message) {
					return o.TypeMeta, o.ObjectMeta, &o.Spec, &o.Status
				})
			default:
				continue
			}
			seen++
		}
	}
	if seen < 500 {
		t.Fatalf("compared %d objects; the fixtures hold more", seen)
	}
}

func sameDecoding[T any](t *testing.T, kind string, js []byte, newObj newIstioObject[T], parts func(*T) (metav1.TypeMeta, metav1.ObjectMeta, proto.Message, proto.Message)) {
	t.Helper()
	got, err := decodeIstio(js, newObj)
	if err != nil {
		t.Fatalf("%s: decodeIstio: %v", kind, err)
	}
	want, err := decodeAs[T](js)
	if err != nil {
		t.Fatalf("%s: decodeAs: %v", kind, err)
	}
	gtm, gom, gspec, gstatus := parts(got)
	wtm, wom, wspec, wstatus := parts(want)
	sameObject(t, kind+" "+wom.Namespace+"/"+wom.Name, gtm, wtm, gom, wom, gspec, wspec, gstatus, wstatus)
}
