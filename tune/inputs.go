package tune

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/mtune/mtune/io/storage"
)

// Checksum returns the sha256 of path's (decompressed) content, read as a
// stream.
func Checksum(ctx context.Context, role, path string) (InputFile, error) {
	r, err := storage.Open(ctx, path)
	if err != nil {
		return InputFile{}, fmt.Errorf("tune: %s: %w", role, err)
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return InputFile{}, fmt.Errorf("tune: %s: %w", role, err)
	}
	return InputFile{Role: role, Path: path, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// SameRun checks that the run cur would continue the run prev recorded
// in out: the same options and seed, and starting weights and inputs of the
// same content (their paths may differ). The error names everything that
// differs.
func SameRun(out string, prev, cur Manifest) error {
	diffs := prev.Options.Diff(cur.Options)
	if prev.Seed != cur.Seed {
		diffs = append(diffs, fmt.Sprintf("--seed: %d in the run, %d now", prev.Seed, cur.Seed))
	}
	// Starting weights at another path (a registry moved with its runs)
	// continue the run if their content is the same: the "init" input's
	// sha256 below says so.
	if (prev.Init == "") != (cur.Init == "") {
		diffs = append(diffs, fmt.Sprintf("--init: %q in the run, %q now", prev.Init, cur.Init))
	}
	for i := 0; i < max(len(prev.Inputs), len(cur.Inputs)); i++ {
		switch {
		case i >= len(prev.Inputs):
			diffs = append(diffs, fmt.Sprintf("input %s %s: not in the run", cur.Inputs[i].Role, cur.Inputs[i].Path))
		case i >= len(cur.Inputs):
			diffs = append(diffs, fmt.Sprintf("input %s %s of the run: not given now", prev.Inputs[i].Role, prev.Inputs[i].Path))
		case prev.Inputs[i].Role != cur.Inputs[i].Role:
			diffs = append(diffs, fmt.Sprintf("input %d: %s %s in the run, %s %s now", i+1,
				prev.Inputs[i].Role, prev.Inputs[i].Path, cur.Inputs[i].Role, cur.Inputs[i].Path))
		case prev.Inputs[i].SHA256 != cur.Inputs[i].SHA256:
			p, c := prev.Inputs[i], cur.Inputs[i]
			diffs = append(diffs, fmt.Sprintf("input %s: %s had sha256 %s in the run, %s has %s now", p.Role, p.Path, p.SHA256, c.Path, c.SHA256))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("tune: --resume of the run in %s with other options or inputs: %s; continue it with the same ones, or start a new run with --overwrite or another --out",
		out, strings.Join(diffs, "; "))
}
