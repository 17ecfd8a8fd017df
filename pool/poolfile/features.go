package poolfile

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
)

// FeatureFile is a feature added to every hypothesis of n-best lists from
// score files: per-hypothesis scores computed elsewhere (a reverse or
// right-to-left model, a language model, a QE model), as marian-scorer
// --n-best appends one to a Marian list. It is a dense feature like the
// lists' own: the group Name of one component, feature.DenseName(Name,
// 0), which a weights file's "Name= w" line weights, written by the
// weights writers and FEATSTAT files as the lists' own are.
type FeatureFile struct {
	// Name is the feature's label: a letter, then letters, digits, "-"
	// and "." (no "_", which would make it a sparse feature's name in a
	// Moses list).
	Name string
	// Paths holds a score file for each n-best file, in the order of the
	// n-best files, in the formats ReadExternalScores reads: one value a
	// line, the k-th the k-th hypothesis' in line order, or
	// "id ||| index ||| value" lines.
	Paths []string
}

// FeatureInTune is why `mtune tune` and `mtune retrain` refuse --feature:
// a score file holds a value for each hypothesis of an n-best list that
// exists, and the pipeline decodes new lists every epoch.
const FeatureInTune = "score files are aligned with n-best lists you have, and tune decodes new lists every epoch: " +
	"give tune (--mode batch) a command that scores each epoch's lists instead, --feature-command NAME=CMD, " +
	"or tune the weights of added features on given lists with tune-nbest --feature (docs/rerank.md)"

// ParseFeatureFlags parses the values of the flag --feature NAME=FILE,
// repeated, for nbests n-best files: each NAME is given once per n-best
// file, its files in the order of the n-best files
// ("--feature rev=a.rev --feature rev=b.rev" for --nbest a b). It returns
// one FeatureFile a name, in the order the names first appear.
func ParseFeatureFlags(values []string, nbests int) ([]FeatureFile, error) {
	var out []FeatureFile
	at := map[string]int{}
	for _, v := range values {
		name, path, ok := strings.Cut(v, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("%q: want NAME=FILE", v)
		}
		if err := CheckFeatureName(name); err != nil {
			return nil, err
		}
		k, seen := at[name]
		if !seen {
			k = len(out)
			at[name] = k
			out = append(out, FeatureFile{Name: name})
		}
		out[k].Paths = append(out[k].Paths, path)
	}
	for _, f := range out {
		if len(f.Paths) != nbests {
			return nil, fmt.Errorf("%s: %d score files for %d n-best files: give %s=FILE once for each --nbest file, in the same order",
				f.Name, len(f.Paths), nbests, f.Name)
		}
	}
	return out, nil
}

// CheckFeatureName refuses a feature name that is not a letter followed
// by letters, digits, "-" and "." (--feature's, tune's --feature-command's).
func CheckFeatureName(name string) error {
	for k, r := range name {
		if !unicode.IsLetter(r) && (k == 0 || !unicode.IsDigit(r) && r != '-' && r != '.') {
			return fmt.Errorf("feature name %q: want a letter, then letters, digits, \"-\" or \".\" (no \"_\", space or \"=\")", name)
		}
	}
	if name == "" {
		return fmt.Errorf("an empty feature name: want NAME=FILE")
	}
	return nil
}

// addedFeatures are the FeatureFiles of the n-best files a merger reads,
// read: each hypothesis' values, found by its file, sentence and index.
type addedFeatures struct {
	nbests []string // the n-best files' paths
	files  []FeatureFile
	ids    []feature.ID // feature.DenseName(Name, 0) of each file
	// vals holds, for each n-best file, by sentence id, the values of the
	// sentence's k-th hypothesis at [k*len(files)+j], j the FeatureFile.
	vals []map[int][]float64
}

// readAddedFeatures reads the score files of files for the n-best files
// at nbestPaths (in format) and interns the features in idx. Every
// hypothesis must have exactly one finite value in each file
// (parseScores: errors name the score file and line).
func readAddedFeatures(ctx context.Context, nbestPaths []string, files []FeatureFile, format nbest.Format, idx *feature.Index) (*addedFeatures, error) {
	a := &addedFeatures{nbests: nbestPaths, files: files}
	for _, f := range files {
		if len(f.Paths) != len(nbestPaths) {
			return nil, fmt.Errorf("poolfile: feature %s: %d score files for %d n-best files", f.Name, len(f.Paths), len(nbestPaths))
		}
		if err := CheckFeatureName(f.Name); err != nil {
			return nil, fmt.Errorf("poolfile: %w", err)
		}
		a.ids = append(a.ids, idx.ID(feature.DenseName(f.Name, 0)))
	}
	nf := len(files)
	for i, np := range nbestPaths {
		hyps, err := readNbestLines(ctx, np, format)
		if err != nil {
			return nil, err
		}
		bySent := make(map[int][]float64)
		for _, h := range hyps {
			bySent[h.sent] = append(bySent[h.sent], make([]float64, nf)...)
		}
		for j, f := range files {
			rc, err := storage.Open(ctx, f.Paths[i])
			if err != nil {
				return nil, err
			}
			xs, err := parseScores(rc, f.Paths[i], np, hyps)
			rc.Close()
			if err != nil {
				return nil, err
			}
			for k, h := range hyps {
				bySent[h.sent][h.index*nf+j] = xs[k]
			}
		}
		a.vals = append(a.vals, bySent)
	}
	return a, nil
}

// groups returns the dense groups of the added features.
func (a *addedFeatures) groups() []feature.Group {
	var out []feature.Group
	for _, f := range a.files {
		out = append(out, feature.Group{Label: f.Name, Len: 1})
	}
	return out
}

// checkGroups refuses an added feature named as one of the dense groups
// of the n-best file path.
func (a *addedFeatures) checkGroups(path string, groups []feature.Group) error {
	for _, f := range a.files {
		for _, g := range groups {
			if g.Label == f.Name {
				return fmt.Errorf("poolfile: %s has a feature %s already (its dense features: %s): give the added feature another name",
					path, f.Name, feature.GroupsString(groups))
			}
		}
	}
	return nil
}

// add adds the features to hyps, the hypotheses of sentence sent of the
// n-best file i (in the reader's order), interned in idx. A hypothesis
// that holds one of them already (as a dense component or a sparse
// feature of the same name) is an error.
func (a *addedFeatures) add(i, sent int, hyps []nbest.Hypothesis, idx *feature.Index) error {
	nf := len(a.files)
	vals := a.vals[i][sent]
	if len(vals) != len(hyps)*nf {
		return fmt.Errorf("poolfile: %s: sentence %d has %d hypotheses, %d when the feature files were read",
			a.nbests[i], sent, len(hyps), len(vals)/nf)
	}
	var b feature.Builder
	for k := range hyps {
		h := &hyps[k]
		for j, f := range a.files {
			sparse, ok := idx.Lookup(f.Name)
			if h.Features.At(a.ids[j]) != 0 || ok && h.Features.At(sparse) != 0 {
				return fmt.Errorf("poolfile: %s: the hypothesis has a feature %s already: give the added feature another name", h.Pos(), f.Name)
			}
			b.Add(a.ids[j], vals[k*nf+j])
		}
		if add := b.Vector(); add.Len() > 0 {
			h.Features = feature.AddScaled(h.Features, 1, add)
		}
	}
	return nil
}
