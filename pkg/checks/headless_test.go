package checks

import (
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// With the headless Service's pods in the input, the call takes the listener istiod builds for
// the endpoint's address, and nothing is assumed; without them the listener of "an endpoint"
// stands in (headlessEndpointCall), said in a note.
func TestHeadlessEndpointListener(t *testing.T) {
	for _, withPod := range []bool{false, true} {
		snap, err := loadPathFixture(filepath.Join("testdata", "paths", "headless-service-tcp-endpoints-not-in-input-registry-only.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if withPod {
			snap.Pods = append(snap.Pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "zk", Name: "zookeeper-0", Labels: map[string]string{"app": "zookeeper"}},
				Status: corev1.PodStatus{PodIP: "10.244.1.11"}})
		}
		p, err := TracePath(snap, PathOptions{Host: "zookeeper.zk.svc.cluster.local", Port: 2181, From: "streams", Call: "tcp"})
		if err != nil {
			t.Fatal(err)
		}
		var hops []string
		for _, h := range p.Hops {
			hops = append(hops, h.Summary)
		}
		noted := false
		for _, n := range p.Notes {
			noted = noted || strings.Contains(n, "is a headless Service")
		}
		wantListener := "<endpoint>_2181"
		if withPod {
			wantListener = "10.244.1.11_2181"
		}
		if p.Cause != PathOK || !strings.Contains(strings.Join(hops, "\n"), "listener "+wantListener) || noted == withPod {
			t.Errorf("pod in input %v: cause %s, hops %q, headless note %v", withPod, p.Cause, hops, noted)
		}
	}
}
