package rules

import (
	"reflect"
	"testing"
)

// TestAliasIndex: ExternalName Services alias the host they name, through chains of aliases
// (istiod resolveServiceAliases); a loop aliases nothing; aliases sort by namespace and host.
func TestAliasIndex(t *testing.T) {
	svc := func(ns, name, ext string) Service {
		return Service{Kind: KindService, Namespace: ns, Name: name, Hostname: name + "." + ns + ".svc.cluster.local", ExternalName: ext}
	}
	concrete := Service{Kind: KindServiceEntry, Namespace: "ext", Name: "api", Hostname: "api.example.com"}
	in := []Service{
		concrete,
		svc("b", "direct", "api.example.com"),
		svc("a", "direct", "api.example.com"),
		svc("c", "hop1", "hop2.c.svc.cluster.local"),
		svc("c", "hop2", "api.example.com"),
		svc("d", "loop1", "loop2.d.svc.cluster.local"),
		svc("d", "loop2", "loop1.d.svc.cluster.local"),
		svc("e", "dotted", "api.example.com."),
	}
	got := AliasIndex(in)
	var names []string
	for _, a := range got["api.example.com"] {
		names = append(names, a.Namespace+"/"+a.Name)
	}
	if want := []string{"a/direct", "b/direct", "c/hop1", "c/hop2"}; !reflect.DeepEqual(names, want) {
		t.Errorf("aliases of api.example.com: %v, want %v", names, want)
	}
	if len(got["loop1.d.svc.cluster.local"])+len(got["loop2.d.svc.cluster.local"]) != 0 {
		t.Errorf("a loop aliases nothing: %v", got)
	}
	if len(got["api.example.com."]) != 1 {
		t.Errorf("a trailing dot names another host: %v", got["api.example.com."])
	}
	d := serviceDomains(concrete, SidecarProxy{Namespace: "a", Aliases: got})
	for _, want := range []string{"api.example.com", "direct", "direct.a", "direct.a.svc", "direct.a.svc.cluster.local.", "direct.b", "hop1.c.svc"} {
		found := false
		for _, x := range d {
			found = found || x == want
		}
		if !found {
			t.Errorf("virtual host domains from namespace a %v lack %q", d, want)
		}
	}
}
