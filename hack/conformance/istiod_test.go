package conformance

// The oracle: istiod's own config generation (pilot/test/xds.NewFakeDiscoveryServer) fed with a
// scenario, and the names of the clusters it builds for each gateway workload.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	meshconfig "istio.io/api/mesh/v1alpha1"
	networking "istio.io/api/networking/v1alpha3"
	"istio.io/istio/pilot/pkg/config/kube/crd"
	"istio.io/istio/pilot/pkg/features"
	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pilot/pkg/simulation"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/bootstrap"
	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/constants"
	"istio.io/istio/pkg/config/mesh"
	"istio.io/istio/pkg/config/protocol"
	"istio.io/istio/pkg/config/schema/gvk"
	dnsserver "istio.io/istio/pkg/dns/server"
	"istio.io/istio/pkg/kube/multicluster"
	"istio.io/istio/pkg/test"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-egress/kubectl-egress/pkg/checks"
	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// doc is one YAML document with its type and identity.
type doc struct {
	text       string
	apiVersion string
	kind       string
	name       string
	namespace  string
	labels     map[string]string
	raw        map[string]any
}

// splitDocs splits multi-document YAML on "---" lines and drops documents without a kind.
func splitDocs(all string) ([]doc, error) {
	var out []doc
	var cur []string
	flush := func() error {
		text := strings.Join(cur, "\n")
		cur = nil
		if strings.TrimSpace(stripComments(text)) == "" {
			return nil
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(text), &m); err != nil {
			return err
		}
		d := doc{text: text, raw: m}
		d.apiVersion, _ = m["apiVersion"].(string)
		d.kind, _ = m["kind"].(string)
		if md, ok := m["metadata"].(map[string]any); ok {
			d.name, _ = md["name"].(string)
			d.namespace, _ = md["namespace"].(string)
			if l, ok := md["labels"].(map[string]any); ok {
				d.labels = map[string]string{}
				for k, v := range l {
					d.labels[k] = fmt.Sprint(v)
				}
			}
		}
		if d.kind != "" {
			out = append(out, d)
		}
		return nil
	}
	for _, line := range strings.Split(all, "\n") {
		if strings.TrimRight(line, " \t\r") == "---" || strings.HasPrefix(line, "--- ") {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur = append(cur, line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func isIstioGroup(apiVersion string) bool {
	g, _, _ := strings.Cut(apiVersion, "/")
	return strings.HasSuffix(g, ".istio.io")
}

// oracleInput is what the fake istiod gets for one scenario, before it is narrowed to one
// istiod revision (forRevision).
type oracleInput struct {
	configs  []config.Config
	kubeYAML string
	// meshTexts maps a mesh ConfigMap name in istio-system ("istio", "istio-canary") to its
	// `mesh` key.
	meshTexts map[string]string
	// proxies are the gateway workloads to build CDS for.
	proxies []proxySpec
	// clients are the sidecar proxies (one per client namespace and per namespace an
	// export-audit subset finding names) to build CDS for (audit_test.go).
	clients []proxySpec
	// flags maps an istiod revision ("default" or the istio.io/rev value) to the flags read from
	// that revision's istiod Deployment.
	flags map[string]istiodFlags
	// nsLabels are the scenario's Namespaces and their labels.
	nsLabels map[string]map[string]string
}

type istiodFlags struct {
	filter, scope bool
	// ipAutoallocate is PILOT_ENABLE_IP_AUTOALLOCATE (nil: unset, istiod's default true).
	ipAutoallocate *bool
}

// revisionInput is what one istiod revision reads.
type revisionInput struct {
	rev     string
	configs []config.Config
	mesh    *meshconfig.MeshConfig
	proxies []proxySpec
	clients []proxySpec
	// filterFlag/scopeFlag are nil when the scenario has no istiod Deployment for the revision.
	filterFlag, scopeFlag *bool
	// ipAutoallocate is features.EnableIPAutoallocate for this revision (istiod's default true
	// when the Deployment does not set it, or there is none).
	ipAutoallocate bool
	// nsLabels are the scenario's Namespaces and their labels (for serviceEntryVisibility).
	nsLabels map[string]map[string]string
	// notCheckable is set when the scenario uses something the harness cannot model.
	notCheckable string
}

// revisions returns the revisions serving the gateway workloads, sorted.
func (in *oracleInput) revisions() []string {
	set := map[string]bool{}
	for _, p := range in.proxies {
		set[p.rev] = true
	}
	for _, p := range in.clients {
		set[p.rev] = true
	}
	return sortedKeysBool(set)
}

// forRevision narrows the input to what istiod revision rev reads: configs unlabelled or
// labelled istio.io/rev=rev (pkg/config/model.go LabelsInRevision; the harness itself runs one
// istiod and reads everything, conformance-notes: revisions), the mesh ConfigMap istio-<rev>
// (else istio), the flags of that revision's istiod Deployment, and the workloads it serves.
func (in *oracleInput) forRevision(rev string) (*revisionInput, error) {
	out := &revisionInput{rev: rev, nsLabels: in.nsLabels}
	for _, c := range in.configs {
		if v, ok := c.Labels["istio.io/rev"]; ok && v != rev {
			continue
		}
		out.configs = append(out.configs, c)
	}
	for _, p := range in.proxies {
		if p.rev == rev {
			out.proxies = append(out.proxies, p)
		}
	}
	for _, p := range in.clients {
		if p.rev == rev {
			out.clients = append(out.clients, p)
		}
	}
	text, ok := in.meshTexts["istio-"+rev]
	if !ok {
		text, ok = in.meshTexts["istio"]
	}
	if ok {
		m, err := mesh.ApplyMeshConfigDefaults(text)
		if err != nil {
			return nil, invalidError{fmt.Errorf("mesh config: %v", err)}
		}
		out.mesh = m
	} else {
		out.mesh = mesh.DefaultMeshConfig()
	}
	out.ipAutoallocate = true
	if f, ok := in.flags[rev]; ok {
		out.filterFlag, out.scopeFlag = &f.filter, &f.scope
		if f.ipAutoallocate != nil {
			out.ipAutoallocate = *f.ipAutoallocate
		}
	}
	return out, nil
}

type proxySpec struct {
	ref    string // "ns/name" of the workload as the plugin names it
	rev    string // istiod revision serving it ("default" when none)
	ns     string
	pod    string
	ip     string
	labels map[string]string
	// annotations are the client Pod's (a scenario's own client Pod, dns_test.go; nil for a
	// synthesised one), and podRef its "ns/name" ("" when synthesised).
	annotations map[string]string
	podRef      string
	// dnsCapture/dnsAutoAllocate: the sidecar's ISTIO_META_DNS_CAPTURE / DNS_AUTO_ALLOCATE
	// metadata (set by runIstiod for client sidecars).
	dnsCapture, dnsAutoAllocate bool
	// env is a gateway pod's proxy container env ("NAME=value"); unprivileged its
	// UNPRIVILEGED_POD node metadata (set by runIstiod for gateways, gatewayMetadata).
	env          []string
	unprivileged string
}

// invalidError marks a scenario istio's own validation rejects.
type invalidError struct{ err error }

func (e invalidError) Error() string { return "invalid: " + e.err.Error() }

// prepareOracle parses a scenario for the fake istiod. workloads are the gateway workloads
// (ns/name plus pod labels) to compare; a Pod is synthesised for every Deployment that has
// none, and an EndpointSlice for every Service with a selector that has none, so that istiod
// maps Service ports to target ports as in a cluster (conformance-notes: gateways).
// snap is the plugin's snapshot of the same YAML: Istio configs get the creationTimestamps the
// plugin's loader assigned, so both sides order objects identically.
//
// clientNs are the namespaces that get a sidecar proxy: each gets a synthesised Pod
// (labels app=conformance-client) with an IP from 10.251.0.0/24, served by the revision of its
// namespace label istio.io/rev (else default, as istio-injection=enabled).
func prepareOracle(all string, snap *snapshot.Snapshot, workloads []workloadRef, clientNs []string) (*oracleInput, error) {
	docs, err := splitDocs(all)
	if err != nil {
		return nil, fmt.Errorf("yaml: %v", err)
	}
	in := &oracleInput{meshTexts: map[string]string{}, flags: map[string]istiodFlags{}}
	nsLabels := map[string]map[string]string{}
	var istio []string
	var kube []string
	namespaces := map[string]bool{}
	type pod struct {
		ns, name, ip string
		labels       map[string]string
		annotations  map[string]string
		ports        []map[string]any
		env          []string // the proxy container's literal env, "NAME=value" (proxyEnv)
		given        bool     // part of the scenario (not synthesised)
	}
	var pods []pod
	type svc struct {
		ns, name string
		selector map[string]string
		ports    []map[string]any
	}
	var svcs []svc
	slices := map[string]bool{}
	type deploy struct {
		ns, name    string
		labels      map[string]string
		annotations map[string]string
		selector    map[string]string
		ports       []map[string]any
		env         []string
	}
	var deploys []deploy
	hasGatewayAPI := false
	for _, d := range docs {
		hasGatewayAPI = hasGatewayAPI || strings.HasPrefix(d.apiVersion, "gateway.networking.k8s.io/")
	}
	for _, d := range docs {
		ns := d.namespace
		if ns == "" {
			ns = "default"
		}
		switch {
		case isIstioGroup(d.apiVersion):
			istio = append(istio, d.text)
			if d.kind == "ServiceEntry" && hasGatewayAPI {
				// The Gateway API controller looks route parents up in its Kubernetes client
				// (a mesh route naming a ServiceEntry it cannot see is not accepted).
				kube = append(kube, d.text)
			}
		case strings.HasPrefix(d.apiVersion, "gateway.networking.k8s.io/"):
			// Kubernetes Gateway API objects: istiod's Gateway API controller reads them from
			// the Kubernetes client (gatewayapi_test.go passes them both ways too), TLSRoutes
			// and TCPRoutes at v1 whatever version they were written at (compareKubeConversion
			// says why).
			text := d.text
			if d.kind == "HTTPRoute" {
				text = withDefaultHTTPRouteMatches(d)
			}
			if d.kind == "TLSRoute" || d.kind == "TCPRoute" {
				text = strings.Replace(text, "gateway.networking.k8s.io/v1alpha2", "gateway.networking.k8s.io/v1", 1)
			}
			istio = append(istio, text)
			kube = append(kube, text)
		case d.apiVersion == "v1" && d.kind == "Namespace":
			namespaces[d.name] = true
			nsLabels[d.name] = d.labels
			kube = append(kube, d.text)
		case d.apiVersion == "v1" && d.kind == "Service":
			if d.namespace == "" {
				return nil, fmt.Errorf("service %s without namespace", d.name)
			}
			kube = append(kube, withDefaultTargetPorts(d))
			spec, _ := d.raw["spec"].(map[string]any)
			s := svc{ns: ns, name: d.name, selector: strMap(spec["selector"])}
			for _, p := range anyList(spec["ports"]) {
				s.ports = append(s.ports, p)
			}
			svcs = append(svcs, s)
		case d.apiVersion == "v1" && d.kind == "Pod":
			kube = append(kube, d.text)
			st, _ := d.raw["status"].(map[string]any)
			ip, _ := st["podIP"].(string)
			md, _ := d.raw["metadata"].(map[string]any)
			pods = append(pods, pod{ns: ns, name: d.name, ip: ip, labels: d.labels, annotations: strMap(md["annotations"]), ports: containerPorts(d.raw["spec"]), env: proxyEnv(d.raw["spec"]), given: true})
		case d.apiVersion == "discovery.k8s.io/v1" && d.kind == "EndpointSlice":
			kube = append(kube, d.text)
			slices[ns+"/"+d.labels["kubernetes.io/service-name"]] = true
		case d.apiVersion == "apps/v1" && d.kind == "Deployment":
			spec, _ := d.raw["spec"].(map[string]any)
			tmpl, _ := spec["template"].(map[string]any)
			tmd, _ := tmpl["metadata"].(map[string]any)
			sel, _ := spec["selector"].(map[string]any)
			deploys = append(deploys, deploy{ns: ns, name: d.name, labels: strMap(tmd["labels"]), annotations: strMap(tmd["annotations"]), selector: strMap(sel["matchLabels"]),
				ports: containerPorts(tmpl["spec"]), env: proxyEnv(tmpl["spec"])})
		case d.apiVersion == "v1" && d.kind == "ConfigMap" && (d.name == "istio" || strings.HasPrefix(d.name, "istio-")) && ns == "istio-system":
			data, _ := d.raw["data"].(map[string]any)
			if m, ok := data["mesh"].(string); ok {
				in.meshTexts[d.name] = m
			}
		}
	}
	// Flags from each revision's istiod Deployment (env of container discovery, parsed with
	// strconv.ParseBool like istiod's pkg/env: unparsable = default false). A Deployment in
	// istio-system wins over one elsewhere.
	for _, d := range docs {
		if d.kind != "Deployment" || (d.labels["app"] != "istiod" && d.labels["istio"] != "pilot") {
			continue
		}
		spec, _ := d.raw["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		tmd, _ := tmpl["metadata"].(map[string]any)
		rev := d.labels["istio.io/rev"]
		if rev == "" {
			rev = strMap(tmd["labels"])["istio.io/rev"]
		}
		if rev == "" {
			rev = "default"
		}
		if _, seen := in.flags[rev]; seen && d.namespace != "istio-system" {
			continue
		}
		ts, _ := tmpl["spec"].(map[string]any)
		cs := anyList(ts["containers"])
		var c map[string]any
		for _, x := range cs {
			if x["name"] == "discovery" {
				c = x
			}
		}
		if c == nil && len(cs) > 0 {
			c = cs[0]
		}
		if c == nil {
			continue
		}
		var f istiodFlags
		for _, e := range anyList(c["env"]) {
			v, _ := e["value"].(string)
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			b = err == nil && b
			switch e["name"] {
			case "PILOT_FILTER_GATEWAY_CLUSTER_CONFIG":
				f.filter = b
			case "PILOT_SCOPE_GATEWAY_TO_NAMESPACE":
				f.scope = b
			case "PILOT_ENABLE_IP_AUTOALLOCATE":
				// Default true; pkg/env BoolVar.Lookup: strconv.ParseBool of the raw value, the
				// default on a parse error.
				a, err := strconv.ParseBool(v)
				if err != nil {
					a = true
				}
				f.ipAutoallocate = &a
			}
		}
		in.flags[rev] = f
	}

	// Istio configs: istio's own parsing and validation (crd.ParseInputs); Domain as a real
	// istiod's crdclient sets it (conformance-notes: short names), creation times from the
	// plugin's snapshot.
	cfgs, _, err := crd.ParseInputs(strings.Join(istio, "\n---\n"))
	if err != nil {
		return nil, invalidError{err}
	}
	created := creationTimes(snap)
	for i := range cfgs {
		c := &cfgs[i]
		if c.Namespace == "" {
			c.Namespace = "default"
		}
		c.Domain = constants.DefaultClusterLocalDomain
		if t, ok := created[c.GroupVersionKind.Kind+"/"+c.Namespace+"/"+c.Name]; ok {
			c.CreationTimestamp = t
		} else if c.CreationTimestamp.IsZero() {
			c.CreationTimestamp = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	in.configs = cfgs
	// ServiceEntry status.addresses must reach istiod as config.Config.Status (dns_test.go).
	withStatus := 0
	for _, d := range docs {
		if st, ok := d.raw["status"].(map[string]any); ok && d.kind == "ServiceEntry" && isIstioGroup(d.apiVersion) && len(anyList(st["addresses"])) > 0 {
			withStatus++
		}
	}
	if n := statusAddressCount(&revisionInput{configs: cfgs}); n != withStatus {
		return nil, fmt.Errorf("harness: %d ServiceEntries list status.addresses, %d reach istiod's configs with them", withStatus, n)
	}
	// The addresses the plugin predicts istiod's allocator writes for entries whose manifests
	// carry none (snapshot.PredictAllocations): the fake server runs no allocator, so istiod
	// gets them as the status a running one would have written (dns_test.go).
	applyPredictedAddresses(cfgs, snap)

	// Pods for Deployments that have none.
	ipSeq := 1
	for _, d := range deploys {
		has := false
		for _, p := range pods {
			if p.ns == d.ns && len(d.selector) > 0 && subset(d.selector, p.labels) {
				has = true
			}
		}
		if has || len(d.labels) == 0 {
			continue
		}
		p := pod{ns: d.ns, name: d.name + "-synth", ip: fmt.Sprintf("10.250.0.%d", ipSeq), labels: d.labels, annotations: d.annotations, ports: d.ports, env: d.env}
		ipSeq++
		pods = append(pods, p)
		kube = append(kube, podYAML(p.ns, p.name, p.ip, p.labels, p.ports))
	}
	// The gateway workloads to compare, each with a Pod.
	for _, w := range workloads {
		var found *pod
		for i := range pods {
			p := &pods[i]
			if p.ns == w.ns && (p.name == w.name || subset(w.labels, p.labels)) && len(w.labels) > 0 {
				found = p
				break
			}
		}
		if found == nil {
			p := pod{ns: w.ns, name: w.name + "-synth", ip: fmt.Sprintf("10.250.0.%d", ipSeq), labels: w.labels}
			ipSeq++
			pods = append(pods, p)
			kube = append(kube, podYAML(p.ns, p.name, p.ip, p.labels, nil))
			found = &pods[len(pods)-1]
		}
		rev := w.labels["istio.io/rev"]
		if rev == "" {
			rev = nsLabels[w.ns]["istio.io/rev"]
		}
		if rev == "" {
			rev = "default"
		}
		in.proxies = append(in.proxies, proxySpec{ref: w.ns + "/" + w.name, rev: rev, ns: w.ns, pod: found.name, ip: found.ip, labels: w.labels, annotations: found.annotations, env: found.env})
		namespaces[w.ns] = namespaces[w.ns] || false
	}
	// Sidecar client pods, one per client namespace (added after the gateway workloads and
	// after the Pods of Deployments, so that nothing above can pick them). A scenario's own Pod
	// labelled app=conformance-client with an IP in the namespace is that client (its
	// annotations carry proxy.istio.io/config, dns_test.go); else one is synthesised.
	for i, ns := range clientNs {
		labels := map[string]string{"app": "conformance-client"}
		p := pod{ns: ns, name: "conformance-client-synth", ip: fmt.Sprintf("10.251.0.%d", i+1), labels: labels}
		podRef := ""
		given := false
		for _, x := range pods {
			if x.given && x.ns == ns && x.ip != "" && x.labels["app"] == "conformance-client" {
				p, podRef, given = x, x.ns+"/"+x.name, true
				break
			}
		}
		if !given {
			kube = append(kube, podYAML(p.ns, p.name, p.ip, p.labels, nil))
		}
		rev := nsLabels[ns]["istio.io/rev"]
		if rev == "" {
			rev = "default"
		}
		in.clients = append(in.clients, proxySpec{ref: ns + "/" + p.name, rev: rev, ns: ns, pod: p.name, ip: p.ip, labels: p.labels,
			annotations: p.annotations, podRef: podRef})
		namespaces[ns] = namespaces[ns] || false
	}
	// EndpointSlices for Services with a selector and none given.
	for _, s := range svcs {
		if slices[s.ns+"/"+s.name] || len(s.selector) == 0 {
			continue
		}
		var eps []pod
		for _, p := range pods {
			if p.ns == s.ns && subset(s.selector, p.labels) {
				eps = append(eps, p)
			}
		}
		if len(eps) == 0 {
			continue
		}
		kube = append(kube, endpointSliceYAML(s.ns, s.name, eps[0].ports, s.ports, func() []string {
			var out []string
			for _, p := range eps {
				out = append(out, p.ip+"|"+p.name)
			}
			return out
		}()))
	}
	if _, ok := namespaces["istio-system"]; !ok {
		namespaces["istio-system"] = false
	}
	for _, ns := range sortedKeysBool(namespaces) {
		if !namespaces[ns] {
			kube = append(kube, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s", ns))
		}
	}
	in.kubeYAML = strings.Join(kube, "\n---\n")
	// The API server adds kubernetes.io/metadata.name=<name> to every Namespace (the plugin
	// assumes it too, checks.NamespaceLabels); serviceEntryVisibility selectors may match it.
	for ns := range namespaces {
		l := map[string]string{}
		for k, v := range nsLabels[ns] {
			l[k] = v
		}
		if os.Getenv("CONFORMANCE_NO_METADATA_NAME_LABEL") == "" {
			l["kubernetes.io/metadata.name"] = ns
		}
		nsLabels[ns] = l
	}
	in.nsLabels = nsLabels
	return in, nil
}

type workloadRef struct {
	ns, name string
	labels   map[string]string
}

func creationTimes(snap *snapshot.Snapshot) map[string]time.Time {
	out := map[string]time.Time{}
	add := func(kind, ns, name string, t time.Time) { out[kind+"/"+ns+"/"+name] = t }
	for _, o := range snap.ServiceEntries {
		add("ServiceEntry", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.VirtualServices {
		add("VirtualService", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.DestinationRules {
		add("DestinationRule", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.Gateways {
		add("Gateway", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.Sidecars {
		add("Sidecar", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.WorkloadEntries {
		add("WorkloadEntry", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.EnvoyFilters {
		add("EnvoyFilter", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.KubeGateways {
		add("Gateway", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.HTTPRoutes {
		add("HTTPRoute", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	for _, o := range snap.GRPCRoutes {
		add("GRPCRoute", o.Namespace, o.Name, o.CreationTimestamp.Time)
	}
	return out
}

func strMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for k, x := range m {
		out[k] = fmt.Sprint(x)
	}
	return out
}

// withDefaultTargetPorts is a Service's manifest as the API server stores it: a port without
// targetPort targets its own port number (Kubernetes' defaulting of ServicePort.targetPort).
// istiod reads the target port from the Service (a gateway's listener is on the targetPort of
// the Service port its server names) and the fake client applies no defaults, so without this a
// Service written without targetPort - the one istiod deploys for a Gateway API Gateway has none
// - gives istiod listeners on port 0. Only istiod's input is changed: the plugin applies the
// same default itself.
func withDefaultTargetPorts(d doc) string {
	spec, _ := d.raw["spec"].(map[string]any)
	changed := false
	for _, p := range anyList(spec["ports"]) {
		if _, ok := p["targetPort"]; !ok && p["port"] != nil {
			p["targetPort"] = p["port"]
			changed = true
		}
	}
	if !changed {
		return d.text
	}
	b, err := yaml.Marshal(d.raw)
	if err != nil {
		return d.text
	}
	return string(b)
}

// withDefaultHTTPRouteMatches is an HTTPRoute's manifest as the API server stores it: the
// Gateway API CRD defaults a rule's omitted matches to [{path: {type: PathPrefix, value: /}}] and
// a match's omitted path (its type, its value) to PathPrefix "/". istiod sorts the rules with
// those paths (conversion.go sortHTTPRoutes), the fake client applies no CRD defaults, and the
// plugin applies the same defaults itself (rules.defaultedHTTPMatches). Only istiod's input is
// changed.
func withDefaultHTTPRouteMatches(d doc) string {
	if !defaultHTTPRouteMatches(d.raw) {
		return d.text
	}
	b, err := yaml.Marshal(d.raw)
	if err != nil {
		return d.text
	}
	return string(b)
}

// defaultHTTPRouteMatches applies those defaults to a decoded HTTPRoute, reporting a change.
func defaultHTTPRouteMatches(raw map[string]any) bool {
	spec, _ := raw["spec"].(map[string]any)
	root := func() map[string]any { return map[string]any{"type": "PathPrefix", "value": "/"} }
	changed := false
	for _, r := range anyList(spec["rules"]) {
		ms := anyList(r["matches"])
		if len(ms) == 0 {
			r["matches"] = []any{map[string]any{"path": root()}}
			changed = true
			continue
		}
		for _, m := range ms {
			p, ok := m["path"].(map[string]any)
			if !ok {
				m["path"] = root()
				changed = true
				continue
			}
			if _, ok := p["type"]; !ok {
				p["type"], changed = "PathPrefix", true
			}
			if _, ok := p["value"]; !ok {
				p["value"], changed = "/", true
			}
		}
	}
	return changed
}

// withDefaultHTTPRouteMatchesYAML applies defaultHTTPRouteMatches to every HTTPRoute of a
// multi-document manifest (istiod's input only).
func withDefaultHTTPRouteMatchesYAML(text string) string {
	docs := strings.Split(text, "\n---\n")
	for i, d := range docs {
		if !strings.Contains(d, "kind: HTTPRoute") {
			continue
		}
		var raw map[string]any
		if err := yaml.Unmarshal([]byte(d), &raw); err != nil || raw["kind"] != "HTTPRoute" || !defaultHTTPRouteMatches(raw) {
			continue
		}
		if b, err := yaml.Marshal(raw); err == nil {
			docs[i] = strings.TrimSuffix(string(b), "\n")
		}
	}
	return strings.Join(docs, "\n---\n")
}

func anyList(v any) []map[string]any {
	l, _ := v.([]any)
	var out []map[string]any
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func containerPorts(spec any) []map[string]any {
	s, _ := spec.(map[string]any)
	var out []map[string]any
	for _, c := range anyList(s["containers"]) {
		out = append(out, anyList(c["ports"])...)
	}
	return out
}

// proxyEnv is the literal env ("NAME=value", valueFrom skipped) of a pod spec's istio-proxy
// container, or of its only container when none has that name: what the agent of a gateway
// pod reads its ISTIO_META_* node metadata from.
func proxyEnv(spec any) []string {
	s, _ := spec.(map[string]any)
	cs := anyList(s["containers"])
	var c map[string]any
	for _, x := range cs {
		if x["name"] == "istio-proxy" {
			c = x
		}
	}
	if c == nil && len(cs) == 1 {
		c = cs[0]
	}
	var out []string
	for _, e := range anyList(c["env"]) {
		name, _ := e["name"].(string)
		if v, ok := e["value"].(string); ok && name != "" {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// gatewayMetadata derives a gateway proxy's UNPRIVILEGED_POD node metadata with the agent's own
// code (pkg/bootstrap GetNodeMetaData: meshConfig.defaultConfig merged with the pod's
// proxy.istio.io/config, its proxyMetadata, then the ISTIO_META_* variables of the env).
func gatewayMetadata(mc *meshconfig.MeshConfig, annotations map[string]string, env []string) (string, error) {
	if a := annotations[checks.ProxyConfigAnnotation]; a != "" {
		var err error
		if mc, err = mesh.ApplyProxyConfig(a, mc); err != nil {
			return "", fmt.Errorf("%s: %v", checks.ProxyConfigAnnotation, err)
		}
	}
	node, err := bootstrap.GetNodeMetaData(bootstrap.MetadataOptions{Envs: env, ProxyConfig: mc.GetDefaultConfig()})
	if err != nil {
		return "", err
	}
	return node.Metadata.UnprivilegedPod, nil
}

func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func podYAML(ns, name, ip string, labels map[string]string, ports []map[string]any) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n", name, ns)
	for _, k := range sortedKeys(labels) {
		fmt.Fprintf(&b, "    %q: %q\n", k, labels[k])
	}
	b.WriteString("spec:\n  containers:\n  - name: istio-proxy\n    image: auto\n")
	if len(ports) > 0 {
		b.WriteString("    ports:\n")
		for _, p := range ports {
			fmt.Fprintf(&b, "    - containerPort: %v\n", p["containerPort"])
			if n, ok := p["name"].(string); ok {
				fmt.Fprintf(&b, "      name: %s\n", n)
			}
		}
	}
	fmt.Fprintf(&b, "status:\n  phase: Running\n  podIP: %s\n  podIPs: [{ip: %s}]\n  conditions:\n  - {type: Ready, status: \"True\"}\n", ip, ip)
	return b.String()
}

// endpointSliceYAML maps each Service port to its target port (a number, or a container port
// name resolved on the pod's ports; unresolved names keep the service port).
func endpointSliceYAML(ns, svc string, podPorts, svcPorts []map[string]any, addrs []string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: %s-synth\n  namespace: %s\n  labels: {kubernetes.io/service-name: %s}\naddressType: IPv4\nendpoints:\n", svc, ns, svc)
	for _, a := range addrs {
		ip, pod, _ := strings.Cut(a, "|")
		fmt.Fprintf(&b, "- addresses: [%s]\n  conditions: {ready: true}\n  targetRef: {kind: Pod, name: %s, namespace: %s}\n", ip, pod, ns)
	}
	b.WriteString("ports:\n")
	for _, p := range svcPorts {
		port := p["port"]
		target := port
		switch t := p["targetPort"].(type) {
		case float64, int, int64:
			target = t
		case string:
			for _, cp := range podPorts {
				if cp["name"] == t {
					target = cp["containerPort"]
				}
			}
		}
		proto := "TCP"
		if s, ok := p["protocol"].(string); ok && s != "" {
			proto = s
		}
		name, _ := p["name"].(string)
		fmt.Fprintf(&b, "- {name: %q, port: %v, protocol: %s}\n", name, target, proto)
	}
	return b.String()
}

func sortedKeysBool(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// entryTargets443: port sp of service svc comes from a ServiceEntry port other than 443 whose
// targetPort is 443 (the server's TLS port, as in Istio's TLS origination task): a plaintext
// call sent there unencrypted meets a TLS server, like one to a port declared HTTPS or TLS.
func entryTargets443(configs []config.Config, svc *model.Service, sp *model.Port) bool {
	if sp.Port == 443 {
		return false
	}
	for _, c := range configs {
		// (a ServiceEntry's services are named after their host: serviceentry/conversion.go)
		if c.GroupVersionKind.Kind != gvk.ServiceEntry.Kind || c.Namespace != svc.Attributes.Namespace || !slices.Contains(c.Spec.(*networking.ServiceEntry).GetHosts(), string(svc.Hostname)) {
			continue
		}
		se := c.Spec.(*networking.ServiceEntry)
		for _, p := range se.GetPorts() {
			if p.GetNumber() != uint32(sp.Port) {
				continue
			}
			// the endpoints' port: an inline endpoint's ports[name], else targetPort, else the
			// number (serviceentry/conversion.go convertEndpoint); every endpoint on 443
			if len(se.GetEndpoints()) == 0 {
				return p.GetTargetPort() == 443
			}
			for _, e := range se.GetEndpoints() {
				n := e.GetPorts()[p.GetName()]
				if n == 0 {
					n = p.GetTargetPort()
				}
				if n != 443 {
					return false
				}
			}
			return true
		}
	}
	return false
}

// runIstiod builds CDS for every proxy of in with the given flag values and returns, per
// workload ref, the set of cluster names. Validation errors inside the harness, and any Fatal,
// come back as an error.
func runIstiod(tt *testing.T, kubeYAML string, in *revisionInput, filter, scope bool) (*istiodOut, error) {
	res := &istiodOut{cds: map[string]map[string]bool{}, sims: map[string]*proxySim{}, sidecars: map[string]map[string]bool{}, sidecarSims: map[string]*proxySim{}, endpoints: map[string]map[string]int{},
		sidecarEndpoints: map[string]map[string]int{}, sidecarDNS: map[string]*sidecarDNS{}}
	out := res.cds
	var panicked any
	err := test.Wrap(func(t test.Failer) {
		defer func() {
			if r := recover(); r != nil {
				panicked = r
				t.Fatalf("panic: %v", r)
			}
		}()
		test.SetForTest(t, &features.FilterGatewayClusterConfig, filter)
		test.SetForTest(t, &features.ScopeGatewayToNamespace, scope)
		// PILOT_ENABLE_IP_AUTOALLOCATE: read when ServiceEntries are converted (conversion.go
		// convertServices, ip_autoallocation.go) and per proxy (nodeUsesAutoallocatedIPs), both
		// after this point; the fake server starts no allocator controller, so the addresses
		// are the scenario's status.addresses (dns_test.go).
		test.SetForTest(t, &features.EnableIPAutoallocate, in.ipAutoallocate)
		s := xds.NewFakeDiscoveryServer(t, xds.FakeOptions{
			Configs:                in.configs,
			KubernetesObjectString: kubeYAML,
			MeshConfig:             in.mesh,
			KubeClientModifier:     gatewayAPIBundleVersion,
		})
		// (read from the first push: a later push that changes no DestinationRule reuses the
		// index without merging again, and records no metric)
		for h := range s.PushContext().GetMetric(model.DuplicatedSubsets.Name()) {
			res.duplicateSubsetHosts = append(res.duplicateSubsetHosts, strings.ToLower(h))
		}
		slices.Sort(res.duplicateSubsetHosts)
		res.duplicateSubsetHosts = slices.Compact(res.duplicateSubsetHosts)
		if in.mesh.GetServiceEntryVisibility() != nil && os.Getenv("CONFORMANCE_NO_NS_INJECT") == "" {
			if err := injectNamespaces(s, in); err != nil {
				t.Fatalf("harness: %v", err)
			}
		}
		if err := checkStatusAddresses(s, in); err != nil {
			t.Fatalf("harness: %v", err)
		}
		for _, p := range in.proxies {
			// UNPRIVILEGED_POD as the agent derives it (gatewayMetadata).
			u, err := gatewayMetadata(in.mesh, p.annotations, p.env)
			if err != nil {
				t.Fatalf("harness: gateway %s: %v", p.ref, err)
			}
			p.unprivileged = u
			proxy, names := setupProxy(s, model.Router, p)
			// Every gateway CDS has BlackHoleCluster; without it the proxy was not built as a
			// gateway and nothing below would mean anything.
			if !names["BlackHoleCluster"] {
				t.Fatalf("harness: proxy %s has no BlackHoleCluster (CDS %v)", p.ref, names)
			}
			out[p.ref] = names
			// Listeners, routes and clusters for the route simulation (routes_test.go), and
			// the service port → target port translation istiod applies to Gateway server
			// ports (pilot/pkg/model/gateway.go resolvePorts, legacy selector: the first
			// ServiceTarget with that port, skipping Services that opt out).
			ps := &proxySim{sim: simulation.NewSimulation(tt, s, proxy), ip: p.ip, tlsMode: p.labels["security.istio.io/tlsMode"], targetPorts: map[uint32]uint32{}, serviceTargetPorts: map[string]map[uint32]uint32{}}
			for _, st := range proxy.ServiceTargets {
				h := string(st.Service.Hostname)
				if ps.serviceTargetPorts[h] == nil {
					ps.serviceTargetPorts[h] = map[uint32]uint32{}
				}
				ps.serviceTargetPorts[h][uint32(st.Port.Port)] = st.Port.TargetPort
				if _, off := st.Service.Attributes.Labels[model.DisableGatewayPortTranslationLabel]; off {
					continue
				}
				if _, seen := ps.targetPorts[uint32(st.Port.Port)]; !seen {
					ps.targetPorts[uint32(st.Port.Port)] = st.Port.TargetPort
				}
			}
			addDedupedServicePorts(ps, kubeYAML, p)
			ps.tlsPorts = map[string]bool{}
			for _, svc := range proxy.SidecarScope.Services() {
				for _, sp := range svc.Ports {
					if sp.Protocol == protocol.HTTPS || sp.Protocol == protocol.TLS || entryTargets443(in.configs, svc, sp) {
						ps.tlsPorts[fmt.Sprintf("%s:%d", svc.Hostname, sp.Port)] = true
					}
				}
			}
			res.sims[p.ref] = ps
			// Endpoints of the gateway's clusters (paths_test.go): EDS clusters by istiod's own
			// endpoint builder (pilot/test/xds FakeDiscoveryServer.Endpoints), clusters with an
			// inline load assignment (STRICT_DNS, LOGICAL_DNS, STATIC) by it; ORIGINAL_DST has none.
			eps := map[string]int{}
			for _, c := range ps.sim.Clusters {
				if la := c.GetLoadAssignment(); la != nil {
					n := 0
					for _, l := range la.GetEndpoints() {
						n += len(l.GetLbEndpoints())
					}
					eps[c.GetName()] = n
				}
			}
			for _, la := range s.Endpoints(proxy) {
				n := 0
				for _, l := range la.GetEndpoints() {
					n += len(l.GetLbEndpoints())
				}
				eps[la.GetClusterName()] = n
			}
			res.endpoints[p.ref] = eps
		}
		// Sidecar proxies of client namespaces (export-audit subset findings, audit_test.go):
		// a SIDECAR proxy with ConfigNamespace = the namespace, the synthesised client Pod's
		// labels and IP.
		// Their listeners, routes and clusters feed the listener calls (listener_test.go).
		for _, p := range in.clients {
			// DNS capture metadata as the injector and agent derive it (dns_test.go).
			capture, auto, err := dnsMetadata(in.mesh, p.annotations)
			if err != nil {
				t.Fatalf("harness: client %s: %v", p.ref, err)
			}
			p.dnsCapture, p.dnsAutoAllocate = capture, auto
			proxy := newProxy(s, model.SidecarProxy, p)
			sim := simulation.NewSimulation(tt, s, proxy)
			res.sidecarDNS[p.ns] = &sidecarDNS{capture: capture, autoAllocate: auto, allocator: in.ipAutoallocate,
				table: dnsserver.BuildNameTable(dnsserver.Config{Node: proxy, Push: s.PushContext()})}
			names := map[string]bool{}
			for _, c := range sim.Clusters {
				names[c.Name] = true
			}
			// Every sidecar CDS has PassthroughCluster and BlackHoleCluster.
			if !names["BlackHoleCluster"] || !names["PassthroughCluster"] {
				t.Fatalf("harness: sidecar in %s has no BlackHoleCluster/PassthroughCluster (CDS %v)", p.ns, names)
			}
			res.sidecars[p.ns] = names
			res.sidecarSims[p.ns] = &proxySim{sim: sim, ip: p.ip}
			// Endpoints of the sidecar's EDS clusters by istiod's endpoint builder (a subset of
			// the gateway's Service keeps only the pods carrying its labels; paths_test.go).
			seps := map[string]int{}
			for _, la := range s.Endpoints(proxy) {
				n := 0
				for _, l := range la.GetEndpoints() {
					n += len(l.GetLbEndpoints())
				}
				seps[la.GetClusterName()] = n
			}
			res.sidecarEndpoints[p.ns] = seps
		}
	})
	if panicked != nil && err == nil {
		err = fmt.Errorf("panic: %v", panicked)
	}
	return res, err
}

// istiodOut is what the oracle built for one revision and flag value: per workload ref, the
// CDS cluster names and the simulation of its listeners, routes and clusters.
type istiodOut struct {
	cds  map[string]map[string]bool
	sims map[string]*proxySim
	// sidecars maps a client namespace to its sidecar proxy's CDS cluster names.
	sidecars map[string]map[string]bool
	// sidecarSims maps a client namespace to the simulation of its sidecar's listeners, routes
	// and clusters (listener calls, listener_test.go).
	sidecarSims map[string]*proxySim
	// endpoints maps a gateway workload ref and a cluster name to its number of endpoints (EDS
	// and inline load assignments; clusters without either are not listed).
	endpoints map[string]map[string]int
	// sidecarEndpoints maps a client namespace and a cluster of its sidecar to its number of
	// endpoints (EDS clusters only).
	sidecarEndpoints map[string]map[string]int
	// sidecarDNS maps a client namespace to its sidecar's DNS capture metadata and istiod's
	// DNS name table for it (dns_test.go).
	sidecarDNS map[string]*sidecarDNS
	// duplicateSubsetHosts are the hosts for which istiod dropped a duplicate subset while
	// merging DestinationRules (its pilot_destrule_subsets metric, model.DuplicatedSubsets,
	// recorded by destination_rule.go mergeDestinationRule), lower case.
	duplicateSubsetHosts []string
}

type proxySim struct {
	sim *simulation.Simulation
	ip  string // the gateway pod's IP, the calls' destination address
	// tlsMode is the gateway pod's security.istio.io/tlsMode label: which of a client cluster's
	// transport socket matches (auto mTLS) its endpoint takes.
	tlsMode string
	// targetPorts maps a Service port of the gateway workload to its target port.
	targetPorts map[uint32]uint32
	// serviceTargetPorts maps each Service selecting the workload (by hostname) and its port to
	// the target port: where a call to that Service port lands on the pod.
	serviceTargetPorts map[string]map[uint32]uint32
	// tlsPorts holds "host:port" for the ports the services of the proxy's scope declare HTTPS
	// or TLS (istiod's registry as the gateway sees it).
	tlsPorts map[string]bool
}

// injectNamespaces works around the harness limit of conformance-notes (H4): core.NewConfigGenTest
// builds the ServiceEntry controller on a multicluster controller whose fake client is empty,
// so meshConfig.serviceEntryVisibility namespaceSelectors never see namespace labels. The
// scenario's Namespaces are created in that client (reached through the controller's unexported
// field), then the harness waits until every ServiceEntry service carries the visibility its
// namespace's labels give (model.CompileServiceEntryVisibility, as conversion.go resolves it) and
// pushes again so that the push context is rebuilt with them.
func injectNamespaces(s *xds.FakeDiscoveryServer, in *revisionInput) error {
	f := reflect.ValueOf(s.ServiceEntryRegistry).Elem().FieldByName("multiclusterController")
	if !f.IsValid() {
		return fmt.Errorf("serviceentry.Controller has no field multiclusterController (istio version changed?)")
	}
	mc := *(**multicluster.Controller)(unsafe.Pointer(f.UnsafeAddr()))
	client := mc.ConfigCluster().Client
	for _, ns := range sortedKeysAny(in.nsLabels) {
		obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: in.nsLabels[ns]}}
		if _, err := client.Kube().CoreV1().Namespaces().Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create namespace %s: %v", ns, err)
		}
	}
	matcher, _ := model.CompileServiceEntryVisibility(in.mesh.GetServiceEntryVisibility())
	settled := func() bool {
		for _, svc := range s.ServiceEntryRegistry.Services() {
			if svc.Attributes.Visibility != matcher.VisibilityFor(in.nsLabels[svc.Attributes.Namespace]) {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(10 * time.Second)
	for !settled() {
		if time.Now().After(deadline) {
			return fmt.Errorf("ServiceEntry visibility did not follow the injected namespace labels")
		}
		time.Sleep(2 * time.Millisecond)
	}
	s.Discovery.ConfigUpdate(&model.PushRequest{Forced: true, Reason: model.NewReasonStats(model.GlobalUpdate)})
	for s.Discovery.CommittedUpdates.Load() < s.Discovery.InboundUpdates.Load() {
		if time.Now().After(deadline) {
			return fmt.Errorf("push after namespace injection did not complete")
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

func sortedKeysAny(m map[string]map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// setupProxy builds a proxy of type typ for p (its namespace, labels, pod IP) in istiod and
// returns it with the names of its CDS clusters.
func setupProxy(s *xds.FakeDiscoveryServer, typ model.NodeType, p proxySpec) (*model.Proxy, map[string]bool) {
	proxy := newProxy(s, typ, p)
	names := map[string]bool{}
	for _, c := range s.Clusters(proxy) {
		names[c.Name] = true
	}
	return proxy, names
}

// newProxy builds a proxy of type typ for p (its namespace, labels, pod IP) in istiod.
func newProxy(s *xds.FakeDiscoveryServer, typ model.NodeType, p proxySpec) *model.Proxy {
	labels := map[string]string{}
	for k, v := range p.labels {
		labels[k] = v
	}
	proxy := s.SetupProxy(&model.Proxy{
		Type:            typ,
		ID:              p.pod + "." + p.ns,
		ConfigNamespace: p.ns,
		Labels:          labels,
		IPAddresses:     []string{p.ip},
		Metadata: &model.NodeMetadata{
			Labels:          labels,
			Namespace:       p.ns,
			ClusterID:       constants.DefaultClusterName,
			DNSCapture:      model.StringBool(p.dnsCapture),
			DNSAutoAllocate: model.StringBool(p.dnsAutoAllocate),
			UnprivilegedPod: p.unprivileged,
		},
	})
	return proxy
}

// assignClusterIPs gives every ClusterIP Service of a scenario without spec.clusterIP one
// (10.96.255.N, in document order), as the API server does when such a manifest is applied.
// Both sides then read the same address: without it istiod treats the Service as having no
// VIP (0.0.0.0, listener on the wildcard) while the plugin binds a placeholder VIP
// ("<clusterIP of ns/name>", rules.KubeService), and neither is what a cluster has.
func assignClusterIPs(all string) string {
	lines := strings.Split(all, "\n")
	var out []string
	next := 1
	flush := func(doc []string) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(strings.Join(doc, "\n")), &m); err != nil || m["kind"] != "Service" || m["apiVersion"] != "v1" {
			out = append(out, doc...)
			return
		}
		spec, _ := m["spec"].(map[string]any)
		typ, _ := spec["type"].(string)
		if ip, _ := spec["clusterIP"].(string); ip != "" || (typ != "" && typ != "ClusterIP") {
			out = append(out, doc...)
			return
		}
		for i, l := range doc {
			out = append(out, l)
			if strings.TrimRight(l, " \t\r") != "spec:" {
				continue
			}
			indent := "  "
			for _, x := range doc[i+1:] {
				if t := strings.TrimLeft(x, " "); t != "" && !strings.HasPrefix(t, "#") {
					indent = x[:len(x)-len(t)]
					break
				}
			}
			out = append(out, fmt.Sprintf("%sclusterIP: 10.96.255.%d", indent, next))
			next++
			out = append(out, doc[i+1:]...)
			return
		}
	}
	var cur []string
	for _, l := range lines {
		if strings.TrimRight(l, " \t\r") == "---" || strings.HasPrefix(l, "--- ") {
			flush(cur)
			cur = nil
			out = append(out, l)
			continue
		}
		cur = append(cur, l)
	}
	flush(cur)
	return strings.Join(out, "\n")
}

// addDedupedServicePorts adds the Service ports istiod keeps no ServiceTarget for: a Service
// port whose (targetPort, protocol) an earlier port of the same Service already has
// (pilot/pkg/serviceregistry/kube/controller/controller.go GetProxyServiceTargets dedupes them
// for its listeners). A call to such a port still lands on the pod at its targetPort (the
// Service's endpoints), so the path follows the Service's own spec for it.
func addDedupedServicePorts(ps *proxySim, kubeYAML string, p proxySpec) {
	for _, doc := range strings.Split(kubeYAML, "\n---") {
		var svc corev1.Service
		if yaml.Unmarshal([]byte(doc), &svc) != nil || svc.Kind != "Service" || len(svc.Spec.Selector) == 0 {
			continue
		}
		ns := svc.Namespace
		if ns == "" {
			ns = "default"
		}
		if ns != p.ns || !labelsSubset(svc.Spec.Selector, p.labels) {
			continue
		}
		h := svc.Name + "." + ns + ".svc.cluster.local"
		for _, sp := range svc.Spec.Ports {
			target := uint32(sp.TargetPort.IntVal)
			if target == 0 && sp.TargetPort.StrVal != "" {
				// a named targetPort: the container port an earlier port of the Service with
				// the same name resolved to (istiod's ServiceTarget for it)
				for _, o := range svc.Spec.Ports {
					if t, ok := ps.serviceTargetPorts[h][uint32(o.Port)]; ok && o.TargetPort.StrVal == sp.TargetPort.StrVal && t != 0 {
						target = t
						break
					}
				}
			}
			if target == 0 {
				continue
			}
			if ps.serviceTargetPorts[h] == nil {
				ps.serviceTargetPorts[h] = map[uint32]uint32{}
			}
			if _, ok := ps.serviceTargetPorts[h][uint32(sp.Port)]; !ok {
				ps.serviceTargetPorts[h][uint32(sp.Port)] = target
			}
		}
	}
}

func labelsSubset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}
