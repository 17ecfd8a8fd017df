package poolfile

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/pool"
)

// Features records the features n-best lists hold: those with a non-zero
// value in some hypothesis (Add) and every component of their dense
// groups (which may be zero throughout, as Moses' first distortion
// score). The zero value holds none.
type Features struct {
	ids  []bool // by feature id
	hyps int    // hypotheses added
	// Groups are the lists' dense feature groups.
	Groups []feature.Group
}

// Add records the features of v.
func (l *Features) Add(v feature.Vector) {
	l.hyps++
	for _, id := range v.IDs {
		if int(id) >= len(l.ids) {
			l.ids = append(l.ids, make([]bool, int(id)+1-len(l.ids))...)
		}
		l.ids[id] = true
	}
}

// Has reports whether the lists hold the feature id of idx.
func (l *Features) Has(idx *feature.Index, id feature.ID) bool {
	if int(id) < len(l.ids) && l.ids[id] {
		return true
	}
	label, i, ok := feature.SplitDenseName(idx.Name(id))
	if !ok {
		return false
	}
	for _, g := range l.Groups {
		if g.Label == label && i < g.Len {
			return true
		}
	}
	return false
}

// CheckWeights checks the weights read from path against the features f
// of the n-best lists at paths: an error when the lists hold no
// hypothesis; an error when a dense group of the
// weights has fewer values than the lists' (its other values would weigh
// 0; Moses refuses a wrong count), naming the weights file's line where
// the set records it (weights.Set.Lines); an error when none of the weights'
// features (the groups' components and the non-zero others) is in the
// lists, as every hypothesis would then score 0, and a warning (slog's
// default logger) naming those that are not when only some are.
func CheckWeights(path string, set *weights.Set, f *Features, paths []string) error {
	if f.hyps == 0 { // an empty file: say so, not that the weights match no feature
		return fmt.Errorf("poolfile: the n-best lists %v hold no hypothesis", paths)
	}
	for _, g := range set.Groups {
		k := slices.IndexFunc(f.Groups, func(h feature.Group) bool { return h.Label == g.Label })
		if k >= 0 && f.Groups[k].Len > g.Len { // as Moses refuses a wrong count: the rest would weigh 0
			where := path
			if line := set.Lines[g.Label]; line > 0 {
				where = fmt.Sprintf("%s:%d", path, line)
			}
			return fmt.Errorf("poolfile: %s: %s has %d weights, but the n-best lists %v have %d values of it: give it %d weights (Moses refuses a wrong count)",
				where, g.Label, g.Len, paths, f.Groups[k].Len, f.Groups[k].Len)
		}
	}
	named := map[feature.ID]bool{}
	for _, name := range feature.GroupNames(set.Groups) {
		named[set.Index.ID(name)] = true
	}
	for id, x := range set.Weights {
		if x != 0 {
			named[feature.ID(id)] = true
		}
	}
	var missing []string
	for id := range named {
		if !f.Has(set.Index, id) {
			missing = append(missing, set.Index.Name(id))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	if len(missing) == len(named) {
		return fmt.Errorf("poolfile: no feature of the weights in %s is in the n-best lists %v (weights for %s): check that they belong to the same model",
			path, paths, feature.ShortList(missing))
	}
	slog.Warn("weights for features the n-best lists do not have", "weights", path, "count", len(missing), "names", feature.ShortList(missing))
	return nil
}

// NonFiniteScore is the error for a hypothesis (at pos, "file:line")
// whose model score w·φ is NaN or infinite under the weights of the file
// weightsPath ("" for the default weights).
func NonFiniteScore(pos string, score float64, weightsPath string) error {
	w := "the default weights"
	if weightsPath != "" {
		w = "the weights of " + weightsPath
	}
	return fmt.Errorf("poolfile: %s: the model score of this hypothesis under %s is %v, not a number the hypotheses can be ranked by: a feature value times its weight overflows (check the line's values)", pos, w, score)
}

// StartWeights returns the weights tuning on lists starts from, read with
// their dense groups from the n-best files at paths, with opts, into idx
// (sentences is as for Walk): set, read from the file initPath and checked with
// CheckWeights against the lists, or, when set is nil, a new set giving
// each of the lists' own dense features 1/N (the added ones,
// opts.Features, 0). The set takes the lists' dense
// layout (none for lists without groups, as cdec's and Joshua's, whose
// weights are then written as "name value" lines). It also returns the
// set's weights grown to idx; a hypothesis whose score under them is not
// a finite number is an error (NonFiniteScore).
func StartWeights(ctx context.Context, paths []string, opts Options, idx *feature.Index, sentences int, lists []pool.List, groups []feature.Group,
	set *weights.Set, initPath string) (*weights.Set, feature.Weights, error) {
	if set != nil {
		f := Features{Groups: groups}
		for _, l := range lists {
			for _, h := range l.Hyps {
				f.Add(h.Features)
			}
		}
		if err := CheckWeights(initPath, set, &f, paths); err != nil {
			return nil, nil, err
		}
	} else {
		set = weights.NewSet(idx)
		own := slices.DeleteFunc(slices.Clone(groups), func(g feature.Group) bool {
			return slices.ContainsFunc(opts.Features, func(f FeatureFile) bool { return f.Name == g.Label })
		})
		n := len(feature.GroupNames(own))
		for _, name := range feature.GroupNames(own) {
			set.SetValue(name, 1/float64(n))
		}
	}
	if len(groups) == 0 {
		set.Groups = nil
	} else {
		set.Groups = MergeGroups(set.Groups, groups)
	}
	w := set.Weights.Clone()
	w.Grow(idx.Len())
	if i, k, bad := pool.NonFinite(lists, w); bad {
		h := lists[i].Hyps[k].Features
		return nil, nil, NonFiniteScore(Locate(ctx, paths, opts, idx, sentences, lists[i].Sent, h), h.Dot(w), initPath)
	}
	return set, w, nil
}
