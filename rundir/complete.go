package rundir

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mtune/mtune/io/storage"
)

// completeMarker is the content of an epoch's complete file: the epoch's
// Metrics and a digest (storage.Digest) of every file of its folder that
// a --resume reads — the weights, the learner states, batch mode's pool
// parts — by their slash-separated path in the folder. work/, the
// pipeline's hand-over to the driver, is not read again and not recorded.
type completeMarker struct {
	Metrics
	Files map[string]string `json:"files,omitempty"`
}

// UnmarshalJSON reads the metrics (Metrics.UnmarshalJSON, which the
// embedding would otherwise make the whole marker's) and the files.
func (mk *completeMarker) UnmarshalJSON(data []byte) error {
	var files struct {
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(data, &files); err != nil {
		return err
	}
	if err := mk.Metrics.UnmarshalJSON(data); err != nil {
		return err
	}
	mk.Files = files.Files
	return nil
}

// WriteComplete writes the complete marker of epoch e (EpochLayout.
// Complete) with its metrics m and the digest of every file in e.Dir but
// work/: written last, it marks the epoch done.
func WriteComplete(ctx context.Context, e EpochLayout, m Metrics) error {
	files, err := storage.Walk(ctx, e.Dir)
	if err != nil {
		return err
	}
	mk := completeMarker{Metrics: m, Files: map[string]string{}}
	prefix := strings.TrimSuffix(e.Dir, "/") + "/"
	for _, f := range files {
		rel, ok := strings.CutPrefix(f, prefix)
		if !ok {
			return fmt.Errorf("%s is not under %s", f, e.Dir)
		}
		if rel == "complete" || strings.HasPrefix(rel, "work/") {
			continue
		}
		if mk.Files[rel], err = storage.Digest(ctx, f); err != nil {
			return err
		}
	}
	return WriteJSON(ctx, e.Complete(), mk)
}

// ReadComplete reads the complete marker of epoch e and returns its
// metrics. With verify, every file the marker records is checked against
// its digest: a file changed or gone since the epoch completed is an error
// naming it, since a --resume would build on it.
func ReadComplete(ctx context.Context, e EpochLayout, verify bool) (Metrics, error) {
	var mk completeMarker
	if err := ReadJSON(ctx, e.Complete(), &mk); err != nil {
		return Metrics{}, err
	}
	if !verify {
		return mk.Metrics, nil
	}
	for _, rel := range slices.Sorted(maps.Keys(mk.Files)) {
		p := storage.Join(e.Dir, rel)
		got, err := storage.Digest(ctx, p)
		if err != nil {
			return Metrics{}, fmt.Errorf("%s: recorded when epoch %d completed, now unreadable (%w): put it back, or remove %s to run epoch %d again",
				p, e.N, err, e.Complete(), e.N)
		}
		if want := mk.Files[rel]; got != want {
			return Metrics{}, fmt.Errorf("%s changed after epoch %d completed (%s recorded, %s now): put it back, or remove %s to run epoch %d again",
				p, e.N, want, got, e.Complete(), e.N)
		}
	}
	return mk.Metrics, nil
}

// CompleteEpochs returns the metrics of epochs 1, 2, … of the run folder
// whose complete marker exists, up to the first that is missing: what
// --resume keeps. The files of the last of them, which the next epoch
// reads, are checked against the digests its marker recorded
// (ReadComplete): a file changed since is an error naming it.
func CompleteEpochs(ctx context.Context, dir Layout) ([]Metrics, error) {
	last := 0
	for ; ; last++ {
		ok, err := storage.Exists(ctx, dir.Epoch(last+1).Complete())
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	var ms []Metrics
	for n := 1; n <= last; n++ {
		m, err := ReadComplete(ctx, dir.Epoch(n), n == last)
		if err != nil {
			return nil, err
		}
		if m.Epoch != n {
			return nil, fmt.Errorf("%s records epoch %d", dir.Epoch(n).Complete(), m.Epoch)
		}
		ms = append(ms, m)
	}
	return ms, nil
}
