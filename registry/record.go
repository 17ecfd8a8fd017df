package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
)

// A registry folder is mtune's by its own record, as a run folder is
// (rundir.Record): R/manifest.json, of mtune's schema and of the command
// "retrain", lists the files the registry's nights wrote at its top. Each
// night's run folder, R/runs/ID/, holds a record of its own.

// ErrNoRegistry is returned, wrapped, by CheckRoot.
var ErrNoRegistry = errors.New("holds no registry of mtune")

// registryCommand is the command a registry's manifest records.
const registryCommand = "retrain"

// ownsTop reports whether rel, relative to the registry's root, is a file
// its nights write at its top: the pointer, the history, the report, the
// copies a repair keeps, the demo system.
func ownsTop(rel string) bool {
	switch rel {
	case "promoted.json", "history.jsonl", rundir.ReportName, "promoted.json.broken", "history.jsonl.broken":
		return true
	}
	return strings.HasPrefix(rel, "demo-model/")
}

// record returns the registry's record (not yet loaded).
func (r Registry) record() *rundir.Record {
	return &rundir.Record{Root: r.Root, Command: registryCommand, Owns: ownsTop}
}

// CheckRoot refuses (ErrNoRegistry) a root that holds files but no
// registry: no manifest.json of mtune's recording a registry (one an
// mtune before the record wrote has none, and is refused too). retrain
// calls it before any work, so that a night never writes among a user's
// files; Lock calls it again under the lease.
func (r Registry) CheckRoot(ctx context.Context) error {
	_, err := r.record().Load(ctx)
	if err == nil {
		return nil
	}
	files, werr := storage.Walk(ctx, r.Root)
	if werr != nil {
		return werr
	}
	var others []string
	for _, f := range files {
		if f != r.LeaseFile() {
			others = append(others, strings.TrimPrefix(strings.TrimPrefix(f, strings.TrimSuffix(r.Root, "/")), "/"))
		}
	}
	if len(others) == 0 {
		return nil
	}
	return fmt.Errorf("%s %w: it holds %d files (%s, …) and no manifest.json recording a registry (%v): give --registry an empty or new folder, or a registry of this mtune's",
		r.Root, ErrNoRegistry, len(others), others[0], err)
}

// WriteRecord records, under the registry's lease, the files at its top
// that its nights wrote so far in R/manifest.json (created on the first
// night).
func (r Registry) WriteRecord(ctx context.Context) error {
	rec := r.record()
	m, err := rec.Load(ctx)
	if err != nil {
		if ok, xerr := storage.Exists(ctx, storage.Join(r.Root, "manifest.json")); xerr != nil || ok {
			return errors.Join(err, xerr)
		}
		m = rundir.Manifest{Version: rundir.Version(), Start: time.Now().UTC()}
	}
	m.Status = "registry"
	return rec.Write(ctx, m)
}

// Adopt records a registry an mtune before the record wrote (no
// manifest.json at its top, so that every command refuses it) as one of
// this mtune's: first each night's run folder R/runs/ID/ that has no
// record yet (rundir.Adopt, as tune's folders), then R's top, whose
// promoted.json, history.jsonl and report.html become the registry's.
// The history must parse: R is a registry, not a folder of the user's
// that happens to hold a file of those names. An adoption killed halfway
// is taken up again by the next call.
func (r Registry) Adopt(ctx context.Context, lo rundir.LeaseOptions) ([]rundir.Adoption, error) {
	if _, err := r.record().Load(ctx); err == nil {
		return nil, fmt.Errorf("%s %w", r.Root, rundir.ErrRecorded)
	}
	// Every line of the history must be a night's, the last too (a torn
	// last line, which a night drops, is for repair to mend first).
	data, err := storage.ReadFile(ctx, r.History())
	if err != nil && !notExist(err) {
		return nil, err
	}
	for n, line := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
		if _, err := parseEntry(line); err != nil && len(data) > 0 {
			return nil, fmt.Errorf("registry: %s:%d: %w: not a registry's history to adopt (mend or remove that line first)", r.History(), n+1, err)
		}
	}
	files, err := storage.Walk(ctx, storage.Join(r.Root, "runs"))
	if err != nil {
		return nil, err
	}
	var out []rundir.Adoption
	for _, f := range files {
		id, rest, _ := strings.Cut(strings.TrimPrefix(r.Rel(f), "runs/"), "/")
		if rest != "manifest.json" || CheckRunID(id) != nil {
			continue
		}
		a, err := rundir.Adopt(ctx, r.Run(id).Root, rundir.AdoptOptions{Command: "tune", Owns: rundir.Layout{}.Owns,
			From: []string{"retrain", "tune"}, Lease: lo})
		if errors.Is(err, rundir.ErrRecorded) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, a)
	}
	top, err := rundir.Adopt(ctx, r.Root, rundir.AdoptOptions{Command: registryCommand, Owns: ownsTop, Lease: lo,
		Manifest: &rundir.Manifest{Version: rundir.Version(), Start: time.Now().UTC(), Status: "registry"}})
	if err != nil {
		return out, err
	}
	return append(out, top), nil
}
