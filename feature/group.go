package feature

import (
	"fmt"
	"strings"
)

// Group is a dense feature function of Moses: a label and its number of
// components. The group {Label: "TranslationModel0", Len: 4} holds the
// features "TranslationModel0_0" … "TranslationModel0_3", written in an
// n-best list or weights file as "TranslationModel0= v v v v".
//
// Dense features are the ones named by a Group; every other feature is
// sparse. Writers of Moses formats take the groups to know which features
// to write densely (zeros included) and in what order.
type Group struct {
	Label string
	Len   int
}

// Names returns the feature names of g in component order.
func (g Group) Names() []string {
	out := make([]string, g.Len)
	for i := range out {
		out[i] = DenseName(g.Label, i)
	}
	return out
}

// GroupNames returns the feature names of groups, in order.
func GroupNames(groups []Group) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g.Names()...)
	}
	return out
}

// GroupsString formats groups as "d (7), lm (2)", or "none".
func GroupsString(groups []Group) string {
	if len(groups) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, g := range groups {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d)", g.Label, g.Len)
	}
	return b.String()
}
