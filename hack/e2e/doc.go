// Package e2e holds the end-to-end tests of kubectl-egress: a real kube-apiserver and etcd
// (controller-runtime's envtest, binaries from hack/build-kube.sh), the Istio CRDs, the
// repository's case fixtures (testdata/cases; also the shared acceptance set when
// EGRESS_CASES_DIR or ../shared/cases is present) applied with the real kubectl, and the plugin
// run through kubectl's plugin discovery. Run with `make e2e` (or `go test ./...` in this directory with KUBE_ASSETS
// set; without it the test runs hack/build-kube.sh itself).
package e2e
