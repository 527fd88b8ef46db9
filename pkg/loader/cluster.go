package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	networkingv1alpha3 "istio.io/client-go/pkg/apis/networking/v1alpha3"
	istioclient "istio.io/client-go/pkg/clientset/versioned"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"

	"github.com/kubectl-egress/kubectl-egress/pkg/snapshot"
)

// listPageSize is the page size of the LISTs of Kubernetes kinds (continue tokens until done):
// Pods and Deployments are several KB each, so a page stays well under --max-input-size.
const listPageSize = 5000

// istioPageSize is the page size of the LISTs of the networking.istio.io kinds: a mesh of
// 20,000 ServiceEntries is one round trip. Each further page is a round trip the next waits
// for, and the API server may serve a continued LIST from etcd rather than its watch cache
// (on the benchmark's kube-apiserver 1.36 the second page of 5,000 took 0.5-0.7 s, the first
// 0.1 s; docs/performance.md). 20,000 entries of a typical size are about 16 MB.
const istioPageSize = 20000

// Client-side rate limit used when the kubeconfig sets none (client-go's default, 5 requests/s
// with a burst of 10, would queue the parallel LISTs and the selector queries behind each other).
const (
	defaultQPS   = 50
	defaultBurst = 300
)

// maxSelectorQueries bounds the label-selector LISTs of Pods and Deployments; with more distinct
// selectors than this, both kinds are listed cluster-wide instead.
const maxSelectorQueries = 24

// userAgent is set on the client when the rest.Config has none.
const userAgent = "kubectl-egress"

// FromCluster reads the live state of the cluster cfg points at into a Snapshot.
//
// It issues one paginated LIST (page size 5000, 20,000 for the Istio kinds) per kind and no per-object GETs: Namespaces,
// ServiceEntries, VirtualServices, DestinationRules, Gateways, Sidecars and WorkloadEntries
// (networking.istio.io/v1), EnvoyFilters (networking.istio.io/v1alpha3) and Services in all
// namespaces, and ConfigMaps in the Istio namespace only. Deployments (apps/v1) and Pods are
// read only where a question needs them (workloadQueries): every one in the Istio namespace and
// in opts.WorkloadNamespaces, and elsewhere those that gateway, istiod and ServiceEntry
// workloadSelector labels select, and those a Service selects whose host a ServiceEntry declares
// too, or every one when there are too many distinct selectors. Of those
// ConfigMaps, `istio` and `istio-<rev>` with a `mesh` key fill Snapshot.MeshConfigs under ""
// and "<rev>"; the ConfigMaps themselves are not kept. The kinds are listed concurrently.
// Objects keep their ObjectMeta except managedFields, which are dropped.
//
// A kind whose LIST is forbidden gets Snapshot.Unknown[kind] = "forbidden to list <resource>"
// (for example "forbidden to list serviceentries.networking.istio.io"); a kind whose API is not
// served (CRD not installed) gets "not served: <resource>"; a mesh ConfigMap whose `mesh` key
// does not parse gets Unknown["ConfigMap"] with the reason. Loading goes on in all three cases.
// Any other failure (unreachable server, TLS, bad credentials, ctx deadline) stops the load and
// returns a one-line error such as
// "cannot reach the API server at https://127.0.0.1:6443: connection refused".
// ctx bounds the whole load.
func FromCluster(ctx context.Context, cfg *rest.Config, opts Options) (*snapshot.Snapshot, error) {
	if cfg == nil {
		return nil, errors.New("no API server configuration (kubeconfig) given")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	host := cfg.Host
	c := rest.CopyConfig(cfg)
	if dl, ok := ctx.Deadline(); ok && c.Timeout == 0 {
		// Requests that take no context (API discovery, for the Gateway API's versions) are
		// bounded by the client's timeout: without one, a server that accepts and never answers
		// held them, and the load, forever.
		c.Timeout = max(time.Until(dl), time.Millisecond)
	}
	if c.UserAgent == "" {
		c.UserAgent = userAgent
	}
	if c.QPS == 0 && c.RateLimiter == nil {
		c.QPS, c.Burst = defaultQPS, defaultBurst
	}
	counter := &requestCounter{}
	c.Wrap(counter.wrap)
	limiter := &bodyLimiter{max: opts.maxBytes()}
	c.Wrap(limiter.wrap)
	kc, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("cannot use the API server configuration for %s: %s", host, oneLine(err.Error()))
	}
	ic, err := istioclient.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("cannot use the API server configuration for %s: %s", host, oneLine(err.Error()))
	}
	dc, err := dynamic.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("cannot use the API server configuration for %s: %s", host, oneLine(err.Error()))
	}

	mdc, err := metadata.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("cannot use the API server configuration for %s: %s", host, oneLine(err.Error()))
	}

	ctx = context.WithValue(ctx, objectBudgetKey{}, &objectBudget{max: opts.maxObjects()})
	snap := newSnapshot("cluster "+host, opts)
	istioNS := snap.IstioNamespace
	var configMaps []*corev1.ConfigMap

	all := metav1.NamespaceAll
	nwrc := ic.NetworkingV1().RESTClient()
	tasks := []listTask{
		{snapshot.KindNamespace, "namespaces", func(ctx context.Context) (err error) {
			snap.Namespaces, err = listAll[*corev1.Namespace](ctx, pageFn(kc.CoreV1().Namespaces().List))
			return err
		}, nil},
		{snapshot.KindServiceEntry, "serviceentries.networking.istio.io", func(ctx context.Context) (err error) {
			snap.ServiceEntries, err = listIstio(ctx, nwrc, "serviceentries", "", newServiceEntry)
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listIstio(ctx, nwrc, "serviceentries", ns, newServiceEntry)
			snap.ServiceEntries = append(snap.ServiceEntries, items...)
			return err
		}},
		{snapshot.KindVirtualService, "virtualservices.networking.istio.io", func(ctx context.Context) (err error) {
			snap.VirtualServices, err = listIstio(ctx, nwrc, "virtualservices", "", newVirtualService)
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listIstio(ctx, nwrc, "virtualservices", ns, newVirtualService)
			snap.VirtualServices = append(snap.VirtualServices, items...)
			return err
		}},
		{snapshot.KindDestinationRule, "destinationrules.networking.istio.io", func(ctx context.Context) (err error) {
			snap.DestinationRules, err = listIstio(ctx, nwrc, "destinationrules", "", newDestinationRule)
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listIstio(ctx, nwrc, "destinationrules", ns, newDestinationRule)
			snap.DestinationRules = append(snap.DestinationRules, items...)
			return err
		}},
		{snapshot.KindGateway, "gateways.networking.istio.io", func(ctx context.Context) (err error) {
			snap.Gateways, err = listIstio(ctx, nwrc, "gateways", "", newGateway)
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listIstio(ctx, nwrc, "gateways", ns, newGateway)
			snap.Gateways = append(snap.Gateways, items...)
			return err
		}},
		{snapshot.KindSidecar, "sidecars.networking.istio.io", func(ctx context.Context) (err error) {
			snap.Sidecars, err = listIstio(ctx, nwrc, "sidecars", "", newSidecar)
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listIstio(ctx, nwrc, "sidecars", ns, newSidecar)
			snap.Sidecars = append(snap.Sidecars, items...)
			return err
		}},
		{snapshot.KindWorkloadEntry, "workloadentries.networking.istio.io", func(ctx context.Context) (err error) {
			snap.WorkloadEntries, err = listIstio(ctx, nwrc, "workloadentries", "", newWorkloadEntry)
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listIstio(ctx, nwrc, "workloadentries", ns, newWorkloadEntry)
			snap.WorkloadEntries = append(snap.WorkloadEntries, items...)
			return err
		}},
		{snapshot.KindEnvoyFilter, "envoyfilters.networking.istio.io", func(ctx context.Context) (err error) {
			snap.EnvoyFilters, err = listAll[*networkingv1alpha3.EnvoyFilter](ctx, pageFn(ic.NetworkingV1alpha3().EnvoyFilters(all).List))
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listAll[*networkingv1alpha3.EnvoyFilter](ctx, pageFn(ic.NetworkingV1alpha3().EnvoyFilters(ns).List))
			snap.EnvoyFilters = append(snap.EnvoyFilters, items...)
			return err
		}},
		{snapshot.KindService, "services", func(ctx context.Context) (err error) {
			snap.Services, err = listAll[*corev1.Service](ctx, pageFn(kc.CoreV1().Services(all).List))
			return err
		}, func(ctx context.Context, ns string) error {
			items, err := listAll[*corev1.Service](ctx, pageFn(kc.CoreV1().Services(ns).List))
			snap.Services = append(snap.Services, items...)
			return err
		}},
		// Kubernetes Gateway API objects (not modelled; read so verdicts on the hosts they route
		// say so). Never fails the load: refusals are recorded in snap.GatewayAPIUnread.
		{"GatewayAPI", "gateway.networking.k8s.io objects", func(ctx context.Context) error {
			if err := readGatewayAPI(ctx, kc.Discovery(), dc, snap); err != nil {
				return err
			}
			// Ended by the deadline (or by another list's failure): not an answer, so a
			// timeout names this list among those the server did not answer.
			return ctx.Err()
		}, nil},
		{snapshot.KindConfigMap, "configmaps in namespace " + istioNS, func(ctx context.Context) (err error) {
			configMaps, err = listAll[*corev1.ConfigMap](ctx, pageFn(kc.CoreV1().ConfigMaps(istioNS).List))
			return err
		}, nil},
	}

	errs, fatal := runTasks(ctx, tasks)
	if fatal != nil {
		fatal.answered = limiter.started.Load()
		return nil, describeFatalTask(ctx, host, fatal)
	}
	// Namespace-scoped users: a kind whose cluster-wide LIST is forbidden is listed in the
	// namespaces the command names instead. What was read is kept, and the kind stays unknown
	// (objects elsewhere can change a verdict), with the scope that was read in its reason.
	scoped := map[string]string{}
	if err := listInScope(ctx, host, opts.scopeNamespaces(), tasks, errs, scoped); err != nil {
		return nil, err
	}
	// Second round: the workloads the configuration points at.
	queries := workloadQueries(snap, opts.WorkloadNamespaces)
	deployments := make([][]*appsv1.Deployment, len(queries))
	pods := make([][]*corev1.Pod, len(queries))
	var wtasks []listTask
	for i, q := range queries {
		lo := metav1.ListOptions{LabelSelector: q.selector}
		where := "in all namespaces"
		if q.namespace != "" {
			where = "in namespace " + q.namespace
		}
		wtasks = append(wtasks,
			listTask{snapshot.KindDeployment, "deployments.apps " + where, func(ctx context.Context) (err error) {
				deployments[i], err = listAllWith[*appsv1.Deployment](ctx, pageFn(kc.AppsV1().Deployments(q.namespace).List), lo)
				return err
			}, inScope(q.namespace, func(ctx context.Context, ns string) error {
				items, err := listAllWith[*appsv1.Deployment](ctx, pageFn(kc.AppsV1().Deployments(ns).List), lo)
				deployments[i] = append(deployments[i], items...)
				return err
			})},
			listTask{snapshot.KindPod, "pods " + where, func(ctx context.Context) (err error) {
				pods[i], err = listAllWith[*corev1.Pod](ctx, pageFn(kc.CoreV1().Pods(q.namespace).List), lo)
				return err
			}, inScope(q.namespace, func(ctx context.Context, ns string) error {
				items, err := listAllWith[*corev1.Pod](ctx, pageFn(kc.CoreV1().Pods(ns).List), lo)
				pods[i] = append(pods[i], items...)
				return err
			})})
	}
	werrs, fatal := runTasks(ctx, wtasks)
	if fatal != nil {
		fatal.answered = limiter.started.Load()
		return nil, describeFatalTask(ctx, host, fatal)
	}
	if err := listInScope(ctx, host, opts.scopeNamespaces(), wtasks, werrs, scoped); err != nil {
		return nil, err
	}
	snap.Deployments = unique(deployments)
	snap.Pods = unique(pods)
	// Third round: the names of the Secrets where gateways read the credentials their servers
	// and DestinationRules name (metadata only).
	readSecrets(ctx, mdc, snap, opts.WorkloadNamespaces)
	readPeerAuthentications(ctx, ic, snap)
	tasks = append(tasks, wtasks...)
	errs = append(errs, werrs...)
	snap.Load = snapshot.LoadStats{Requests: counter.n.Load(), WorkloadQueries: len(queries), WorkloadScope: workloadScope(queries)}
	for i, t := range tasks {
		err := errs[i]
		switch {
		case err == nil:
		case snap.Unknown[t.kind] != "":
			// the first refusal of a kind says why
		case apierrors.IsForbidden(err) && scoped[t.kind] != "":
			snap.Unknown[t.kind] = scoped[t.kind]
		case apierrors.IsForbidden(err):
			snap.Unknown[t.kind] = "forbidden to list " + t.resource + " (deploy/clusterrole.yaml lists what kubectl-egress needs)"
		default: // notServed, by runTasks
			snap.Unknown[t.kind] = "not served: " + t.resource
		}
	}

	var meshErrs []string
	for _, cm := range configMaps {
		keepConfigMapData(snap, cm)
		rev, src, ok, err := meshConfigFromConfigMap(cm)
		switch {
		case err != nil:
			meshErrs = append(meshErrs, fmt.Sprintf("ConfigMap %s/%s: %s", cm.Namespace, cm.Name, err))
		case ok:
			snap.MeshConfigs[rev] = src
			if u := meshUnknownField(cm.Data[meshKey]); u != "" {
				snap.LoadWarnings = append(snap.LoadWarnings, meshUnknownProblem(cm, u))
			}
		}
	}
	if len(meshErrs) > 0 {
		snap.Unknown[snapshot.KindConfigMap] = "cannot parse " + strings.Join(meshErrs, "; ")
	}
	// Gateway API routes route egress like VirtualServices (gateway and mesh routes alike):
	// a verdict that did not read them rests on what it could not read (blind audit 65 R1, R2,
	// R4: a confident OK, or an invented cause, under partial RBAC).
	if snap.GatewayAPIUnread != "" {
		snap.Unknown[snapshot.KindGatewayAPI] = snap.GatewayAPIUnread
	}
	if snap.GatewayAPICRDsUnread != "" && len(snap.TLSRoutes)+len(snap.TCPRoutes)+len(snap.GRPCRoutes) > 0 {
		snap.Unknown[snapshot.KindGatewayAPICRD] = snap.GatewayAPICRDsUnread + "; istiod ignores the TLSRoutes, TCPRoutes and GRPCRoutes read if their CRD is older than it supports"
	}
	return snap, nil
}

// listTask lists one kind and stores the result in the snapshot (each task writes its own
// field, so tasks may run concurrently).
type listTask struct {
	kind     string
	resource string
	run      func(ctx context.Context) error
	// inNamespace lists the kind in one namespace, appending to what run fills (nil for
	// cluster-scoped kinds): the fallback when the cluster-wide LIST is forbidden.
	inNamespace func(ctx context.Context, ns string) error
}

// inScope is a workload query's namespace fallback: only a query across all namespaces has one.
func inScope(queryNs string, f func(context.Context, string) error) func(context.Context, string) error {
	if queryNs != "" {
		return nil
	}
	return f
}

// listInScope runs, for each task whose cluster-wide LIST was forbidden, its per-namespace list
// in every scope namespace; scoped[kind] says which namespaces could be read. An error other
// than forbidden or not served stops the load.
func listInScope(ctx context.Context, host string, scope []string, tasks []listTask, errs []error, scoped map[string]string) error {
	for i, t := range tasks {
		if t.inNamespace == nil || !apierrors.IsForbidden(errs[i]) || len(scope) == 0 {
			continue
		}
		var read []string
		for _, ns := range scope {
			err := t.inNamespace(ctx, ns)
			switch {
			case err == nil:
				read = append(read, ns)
			case apierrors.IsForbidden(err) || notServed(err):
			default:
				return describeFatal(ctx, host, t.resource+" in namespace "+ns, err)
			}
		}
		if len(read) > 0 && scoped[t.kind] == "" {
			scoped[t.kind] = fmt.Sprintf("listed only in namespace %s: the cluster-wide list of %s is forbidden (deploy/clusterrole.yaml lists what kubectl-egress needs)", strings.Join(read, ", "), t.resource)
		}
	}
	return nil
}

// failedTask is the first task whose error stops the load.
type failedTask struct {
	resource string
	err      error
	// pending are the resources of the tasks that had not finished when it failed (itself
	// included): with a timeout, the lists the server had not answered.
	pending []string
	total   int
	// answered counts the responses the server had started (headers received).
	answered int64
}

// runTasks runs all tasks concurrently. errs[i] is task i's error when it is forbidden or not
// served (the load goes on); any other error is fatal: the first one cancels the others and is
// returned.
func runTasks(ctx context.Context, tasks []listTask) (errs []error, fatal *failedTask) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs = make([]error, len(tasks))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		finished = make([]bool, len(tasks))
	)
	for i := range tasks {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := tasks[i].run(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err == nil || apierrors.IsForbidden(err) || notServed(err) {
				errs[i] = err
				finished[i] = true
				return
			}
			if fatal == nil {
				fatal = &failedTask{resource: tasks[i].resource, err: err, total: len(tasks)}
				for j, done := range finished {
					if !done {
						fatal.pending = append(fatal.pending, tasks[j].resource)
					}
				}
				cancel()
			}
			finished[i] = true
		}(i)
	}
	wg.Wait()
	return errs, fatal
}

// notServed reports whether err says the API (a CRD) is not installed.
func notServed(err error) bool {
	return apierrors.IsNotFound(err) || meta.IsNoMatchError(err)
}

// pageFn adapts a typed List method to a pager page function.
func pageFn[L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error)) pager.ListPageFunc {
	return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		l, err := list(ctx, opts)
		if err != nil {
			return nil, err
		}
		return l, nil
	}
}

// listAll runs one paginated LIST and returns its items as T, without managedFields.
func listAll[T runtime.Object](ctx context.Context, fn pager.ListPageFunc) ([]T, error) {
	return listAllWith[T](ctx, fn, metav1.ListOptions{})
}

// listAllWith is listAll with list options (a label selector).
func listAllWith[T runtime.Object](ctx context.Context, fn pager.ListPageFunc, opts metav1.ListOptions) ([]T, error) {
	p := pager.New(fn)
	p.PageSize = listPageSize
	var out []T
	err := p.EachListItem(ctx, opts, func(obj runtime.Object) error {
		if err := takeObject(ctx); err != nil {
			return err
		}
		item, ok := obj.(T)
		if !ok {
			return fmt.Errorf("unexpected %T in list", obj)
		}
		if a, err := meta.Accessor(obj); err == nil {
			a.SetManagedFields(nil)
		}
		out = append(out, item)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// describeFatalTask describes the first failure of parallel LISTs. A timeout names the lists the
// server had not answered (all of them when it answered none), not whichever one happened to
// report the deadline first.
func describeFatalTask(ctx context.Context, host string, f *failedTask) error {
	if !isTimeout(ctx, f.err) {
		return describeFatal(ctx, host, f.resource, f.err)
	}
	what := "no answer to any of the " + strconv.Itoa(f.total) + " lists"
	if len(f.pending) < f.total {
		what = fmt.Sprintf("no answer to %d of %d lists: %s", len(f.pending), f.total, strings.Join(f.pending, ", "))
	}
	if f.answered > 0 {
		// the server answered, but its responses did not end in time (a slow or endless body)
		what = fmt.Sprintf("it answered, but %d of %d lists did not finish in time", len(f.pending), f.total)
		if len(f.pending) < f.total {
			what += ": " + strings.Join(f.pending, ", ")
		}
	}
	return fmt.Errorf("timed out reading from the API server at %s (%s); --request-timeout sets the limit (default 60s)", host, what)
}

func isTimeout(ctx context.Context, err error) bool {
	var netErr net.Error
	return (ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)) ||
		errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &netErr) && netErr.Timeout()) ||
		apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
}

// describeFatal turns a failed LIST into a short one-line error for people.
func describeFatal(ctx context.Context, host, resource string, err error) error {
	switch {
	case isTimeout(ctx, err):
		return fmt.Errorf("timed out listing %s from the API server at %s; --request-timeout sets the limit (default 60s)", resource, host)
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return fmt.Errorf("canceled while listing %s from the API server at %s", resource, host)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("the API server at %s rejected the credentials (Unauthorized)", host)
	}
	var big errBodyTooLarge
	if errors.As(err, &big) {
		return fmt.Errorf("listing %s from the API server at %s: %s", resource, host, big.Error())
	}
	var many errTooManyObjects
	if errors.As(err, &many) {
		return fmt.Errorf("listing %s from the API server at %s: the cluster holds %s", resource, host, many.Error())
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		msg := status.Status().Message
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("listing %s from the API server at %s failed: %s", resource, host, oneLine(msg))
	}
	return fmt.Errorf("cannot reach the API server at %s: %s", host, rootCause(err))
}

// rootCause returns the innermost message of a transport error chain: "connection refused"
// rather than `Get "https://…/api/v1/pods?limit=500": dial tcp …: connect: connection refused`.
func rootCause(err error) string {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "cannot resolve " + dnsErr.Name + ": " + dnsErr.Err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "the connection was closed (EOF)"
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	return oneLine(err.Error())
}
