// Package conformance compares the plugin's cluster predictions (pkg/checks.WhyMissing) with
// istiod's own config generation (istio.io/istio/pilot/test/xds) over the shared case files
// and a seeded, generated scenario matrix. See docs/conformance.md. Run with `make conformance`.
package conformance
