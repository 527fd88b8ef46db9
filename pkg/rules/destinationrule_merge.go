package rules

import (
	"slices"

	"google.golang.org/protobuf/proto"
	networking "istio.io/api/networking/v1alpha3"
	networkingv1 "istio.io/client-go/pkg/apis/networking/v1"
)

// MergeDrop is what istiod leaves out of a DestinationRule it merges into an earlier one for the
// same host (same namespace, export set and workload selector): the subsets an earlier rule of
// the entry already defines, and the top-level traffic policy when an earlier rule sets one.
type MergeDrop struct {
	// Rule is the later rule; Into the first rule of the merged entry.
	Rule, Into *networkingv1.DestinationRule
	// Subsets are the names of Rule's subsets that an earlier rule defines differently
	// (SubsetFrom[i] defines Subsets[i]); istiod keeps the earlier definition.
	Subsets    []string
	SubsetFrom []*networkingv1.DestinationRule
	// Identical are the names of Rule's subsets that an earlier rule defines the same way:
	// dropped too, at no cost.
	Identical []string
	// PolicyFrom is the earlier rule whose top-level traffic policy istiod keeps instead of
	// Rule's (nil when Rule sets none, or the same one).
	PolicyFrom *networkingv1.DestinationRule
}

// Drops returns what the merge of c's rules leaves out, rule by rule (only the rules that lose
// something). A traffic policy written the same in both rules loses nothing; a subset written
// the same is listed apart (Identical).
//
// Mirrors istiod pilot/pkg/model/destination_rule.go mergeDestinationRule: "Unique subsets
// (based on subset name) are concatenated" (a duplicate is dropped, with the DuplicatedSubsets
// metric "Duplicate subset ... found while merging destination rules"), and the incoming rule's
// top-level traffic policy is used only when the merged rule has none.
func (c *DRChoice) Drops() []MergeDrop {
	if c == nil || len(c.Rules) < 2 {
		return nil
	}
	var out []MergeDrop
	for i, dr := range c.Rules {
		if i == 0 {
			continue
		}
		d := MergeDrop{Rule: dr, Into: c.Rules[0]}
		for _, s := range dr.Spec.GetSubsets() {
			for _, prev := range c.Rules[:i] {
				j := slices.IndexFunc(prev.Spec.GetSubsets(), func(p *networking.Subset) bool { return p.GetName() == s.GetName() })
				if j < 0 {
					continue
				}
				switch {
				case slices.Contains(d.Subsets, s.GetName()) || slices.Contains(d.Identical, s.GetName()):
				case proto.Equal(prev.Spec.GetSubsets()[j], s):
					d.Identical = append(d.Identical, s.GetName())
				default:
					d.Subsets = append(d.Subsets, s.GetName())
					d.SubsetFrom = append(d.SubsetFrom, prev)
				}
				break
			}
		}
		if tp := dr.Spec.GetTrafficPolicy(); tp != nil {
			for _, prev := range c.Rules[:i] {
				if ptp := prev.Spec.GetTrafficPolicy(); ptp != nil {
					if !proto.Equal(ptp, tp) {
						d.PolicyFrom = prev
					}
					break
				}
			}
		}
		if len(d.Subsets) > 0 || len(d.Identical) > 0 || d.PolicyFrom != nil {
			out = append(out, d)
		}
	}
	return out
}

// MergeDrops returns what istiod leaves out of every DestinationRule it merges into an earlier
// one, over the namespace-local, exported and root-local lists (a rule merged into one entry in
// two lists is reported once), in the lookup's rule order.
func (l *DRLookup) MergeDrops() []MergeDrop {
	type key struct{ rule, into *networkingv1.DestinationRule }
	seen := map[key]bool{}
	var out []MergeDrop
	for _, idx := range []drIndex{l.namespaceLocal, l.exportedByNamespace, l.rootLocal} {
		for _, byHost := range idx {
			for _, list := range byHost {
				for _, m := range list {
					if len(m.rules) < 2 {
						continue
					}
					for _, d := range m.merged().Drops() {
						k := key{d.Rule, d.Into}
						if !seen[k] {
							seen[k] = true
							out = append(out, d)
						}
					}
				}
			}
		}
	}
	order := map[*networkingv1.DestinationRule]int{}
	for i, dr := range l.rules {
		order[dr] = i
	}
	slices.SortStableFunc(out, func(a, b MergeDrop) int {
		if o := order[a.Rule] - order[b.Rule]; o != 0 {
			return o
		}
		return order[a.Into] - order[b.Into]
	})
	return out
}
