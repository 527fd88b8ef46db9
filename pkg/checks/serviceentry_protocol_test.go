package checks

import (
	"strconv"
	"testing"
)

// TestHTTPOnWellKnownTCPPort: preflight warns about a ServiceEntry port numbered like a database
// or broker port and declared HTTP-family, and not about the same port declared TCP or TLS, nor
// about HTTP on an ordinary port.
func TestHTTPOnWellKnownTCPPort(t *testing.T) {
	entry := func(name string, number int, protocol string) string {
		return "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata: {name: " + name + ", namespace: data}\nspec:\n  hosts: [" + name + ".example.net]\n  resolution: DNS\n  ports: [{number: " + strconv.Itoa(number) + ", name: p, protocol: " + protocol + "}]\n"
	}
	snap := loadYAML(t,
		entry("pg-http", 5432, "HTTP"),
		entry("redis-grpc", 6379, "GRPC"),
		entry("mysql-http2", 3306, "HTTP2"),
		entry("pg-tcp", 5432, "TCP"),
		entry("kafka-tls", 9092, "TLS"),
		entry("web-http", 8080, "HTTP"),
	)
	got := map[string]bool{}
	for _, f := range Preflight(snap).Findings {
		if f.Code == PreflightHTTPOnTCPPort {
			got[f.Resource.Name] = true
			if f.Field != "spec.ports[0].protocol" || f.Level != LevelWarning {
				t.Errorf("%s: field %q level %s", f.Resource.Name, f.Field, f.Level)
			}
		}
	}
	for _, n := range []string{"pg-http", "redis-grpc", "mysql-http2"} {
		if !got[n] {
			t.Errorf("%s: no %s", n, PreflightHTTPOnTCPPort)
		}
	}
	for _, n := range []string{"pg-tcp", "kafka-tls", "web-http"} {
		if got[n] {
			t.Errorf("%s: %s where the port's protocol fits", n, PreflightHTTPOnTCPPort)
		}
	}
}
