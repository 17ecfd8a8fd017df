package registry

import (
	"context"
	"errors"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// TestAdoptRegistry (issue 33): a registry an mtune before the record
// wrote (no R/manifest.json, nights' manifests of no schema) is refused by
// retrain until adopted; Adopt records each night's run folder and then
// R's top, and the next night runs on it, starting from the promoted
// weights. Local and gs://.
func TestAdoptRegistry(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := &world{t: t, quality: 0.5, model: 0.2}
			for _, id := range []string{"n1", "n2"} {
				if _, err := w.night(r, id).Run(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := storage.Remove(ctx, storage.Join(r.Root, "manifest.json")); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"n1", "n2"} {
				storagetest.EarlierManifest(t, r.Run(id).Manifest(), "retrain")
			}
			if err := r.CheckRoot(ctx); !errors.Is(err, ErrNoRegistry) {
				t.Fatalf("CheckRoot of the earlier registry: %v, want ErrNoRegistry", err)
			}
			as, err := r.Adopt(ctx, rundir.LeaseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(as) != 3 || as[0].Root != r.Run("n1").Root || as[1].Root != r.Run("n2").Root || as[2].Root != r.Root {
				t.Fatalf("adopted %v, want the nights n1, n2, then the registry", as)
			}
			if len(as[2].Files) == 0 || as[2].Files[0] != "history.jsonl" {
				t.Errorf("the registry's top adopted %v", as[2].Files)
			}
			if err := r.CheckRoot(ctx); err != nil {
				t.Fatalf("CheckRoot after adopting: %v", err)
			}
			if _, err := r.Adopt(ctx, rundir.LeaseOptions{}); !errors.Is(err, rundir.ErrRecorded) {
				t.Errorf("a second adoption: %v, want ErrRecorded", err)
			}
			w.quality = 0.9
			out, err := w.night(r, "n3").Run(ctx)
			if err != nil {
				t.Fatalf("the night after adopting: %v", err)
			}
			if w.tuned[2] != r.Run("n1").Best().JSON() || out.Entry.Decision != Promoted {
				t.Errorf("night 3 started from %q and decided %v, want n1's weights, promoted", w.tuned[2], out.Entry.Decision)
			}
		})
	}
}

// TestAdoptRegistryRefuses: a folder whose history.jsonl is not a
// registry's is not adopted.
func TestAdoptRegistryRefuses(t *testing.T) {
	ctx := context.Background()
	r := Registry{Root: t.TempDir()}
	put(t, r.History(), "my notes, one a line\n")
	if _, err := r.Adopt(ctx, rundir.LeaseOptions{}); err == nil {
		t.Fatal("a folder of the user's with a history.jsonl was adopted")
	}
	if ok, _ := storage.Exists(ctx, storage.Join(r.Root, "manifest.json")); ok {
		t.Error("a refused adoption wrote manifest.json")
	}
}
