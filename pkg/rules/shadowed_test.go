package rules

import (
	"slices"
	"testing"
)

// TestShadowedRoutesByPrefix: a route of one VirtualService on a uri prefix alone hides a later
// route of another VirtualService whose path starts with it (blind audit 37 #22); not a route of
// the same VirtualService, a path it does not cover, a regex, a catch-all, or a prefix route
// with other conditions.
func TestShadowedRoutesByPrefix(t *testing.T) {
	vh := VirtualHost{Routes: []RouteAction{
		{Match: "/v1*", VirtualService: "infra/default"},
		{Match: "/v1/upload*", VirtualService: "apps/upload"},
		{Match: "/v1/own*", VirtualService: "infra/default"},
		{Match: "/v2*", VirtualService: "apps/v2"},
		{Match: "regex /v1/.*", VirtualService: "apps/regex"},
		{Match: "/v2/beta* header x-beta=1", VirtualService: "apps/beta"},
		{Match: "/*", VirtualService: "apps/catchall", CatchAll: true},
	}}
	got := ShadowedRoutes(vh)
	want := ShadowedRoute{By: "infra/default", Shadowed: "apps/upload", Prefix: "/v1", ShadowedMatch: "/v1/upload*"}
	if !slices.Contains(got, want) {
		t.Errorf("no %+v in %+v", want, got)
	}
	// apps/beta's route comes after /v2* of apps/v2: covered too
	if !slices.ContainsFunc(got, func(s ShadowedRoute) bool { return s.Shadowed == "apps/beta" && s.By == "apps/v2" }) {
		t.Errorf("apps/beta not shadowed by apps/v2's /v2*: %+v", got)
	}
	for _, s := range got {
		switch s.Shadowed {
		case "infra/default", "apps/v2", "apps/regex", "apps/catchall":
			t.Errorf("wrongly shadowed: %+v", s)
		}
	}
	// a prefix route with a header condition hides nothing
	vh2 := VirtualHost{Routes: []RouteAction{
		{Match: "/v1* header x=1", VirtualService: "a/one"},
		{Match: "/v1/upload*", VirtualService: "b/two"},
	}}
	if got := ShadowedRoutes(vh2); len(got) != 0 {
		t.Errorf("a conditional prefix route shadows: %+v", got)
	}
}
