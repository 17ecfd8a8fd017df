package rundir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// Adopting a folder an mtune before the record wrote (mtune adopt): such a
// folder (a run, a build, a tune-nbest or extract output, a registry)
// holds files and a manifest.json of no schema, so every command refuses
// it (ErrNoRun) and --resume, --overwrite and the next night stop working
// once mtune is upgraded. Adopt gives it the record an mtune of today
// would have written: the files the command writes there, by their names
// (Owns) and with their bytes as they are now, become the command's; every
// other file is kept, recorded as the user's. The user vouches for the
// folder by adopting it; mtune still refuses a manifest.json that is not
// one an earlier mtune wrote.

// ErrRecorded is returned, wrapped, by Adopt and EarlierCommand for a
// folder that already holds a record of mtune's: nothing to adopt.
var ErrRecorded = errors.New("already holds a record of mtune's")

// earlierManifest is what tells a manifest.json an mtune before the record
// wrote: its command line as mtune recorded it ("mtune", the command, its
// arguments), the version, and no schema.
type earlierManifest struct {
	Schema        *string  `json:"schema"`
	SchemaVersion int      `json:"schema_version"`
	CommandLine   []string `json:"command_line"`
	Version       string   `json:"version"`
}

// EarlierCommand reads root/manifest.json and returns the command that
// wrote it, an mtune before the record (one without a "schema"):
// fs.ErrNotExist, wrapped, when the folder has no manifest.json (a
// registry's top has none), ErrRecorded when the manifest is of mtune's
// schema already, ErrNotMtune when it is another program's (no command line
// of mtune's, no version) or a schema mtune does not know.
func EarlierCommand(ctx context.Context, root string) (string, error) {
	path := storage.Join(root, manifestName)
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return "", err
	}
	var m earlierManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("%s: %w: %v", path, ErrNotMtune, err)
	}
	switch {
	case m.Schema != nil && *m.Schema == ManifestSchema && m.SchemaVersion == ManifestSchemaVersion:
		return "", fmt.Errorf("%s %w", root, ErrRecorded)
	case m.Schema != nil:
		return "", fmt.Errorf("%s: %w: schema %q version %d, this mtune reads %q version %d",
			path, ErrNotMtune, *m.Schema, m.SchemaVersion, ManifestSchema, ManifestSchemaVersion)
	case len(m.CommandLine) < 2 || m.CommandLine[0] != "mtune" || m.Version == "":
		return "", fmt.Errorf("%s: %w: no \"command_line\" of mtune's and \"version\", as an earlier mtune wrote them", path, ErrNotMtune)
	}
	return m.CommandLine[1], nil
}

// AdoptOptions configure Adopt.
type AdoptOptions struct {
	// Command is the command whose output the folder is ("tune",
	// "build", …: EarlierCommand), Owns the files it writes there (see
	// OpenOptions.Owns).
	Command string
	Owns    func(rel string) bool
	// From are the commands whose earlier manifest.json the folder may
	// hold (EarlierCommand); nil is Command alone. A registry's nights
	// are tune's run folders that retrain wrote.
	From []string
	// Manifest, if not nil, is the manifest to record for a folder that
	// has none (a registry's top); nil reads the earlier manifest.json,
	// which must be there, and keeps what it holds.
	Manifest *Manifest
	Lease    LeaseOptions
}

// Adoption is what Adopt recorded: the paths, relative to the folder, of
// the files now the command's and of those kept as the user's.
type Adoption struct {
	Root        string
	Files, Kept []string
}

// Adopt records the folder root, written by an mtune before the record, as
// o.Command's, under the folder's lease: a manifest.json of mtune's schema
// keeping the earlier manifest's fields, listing every file o.Owns accepts
// with its digest (the command's from now on: --overwrite removes it while
// unchanged) and every other file as kept. A folder already recorded is
// refused (ErrRecorded), as is one whose manifest is not an earlier
// mtune's, or of another command, or that holds no file o.Owns accepts.
// Only manifest.json is written.
func Adopt(ctx context.Context, root string, o AdoptOptions) (Adoption, error) {
	root, err := storage.Clean(root)
	if err != nil {
		return Adoption{}, err
	}
	l, err := AcquireLease(ctx, Layout{Root: root}.LeaseFile(), o.Lease)
	if err != nil {
		return Adoption{}, err
	}
	defer l.Release(context.WithoutCancel(ctx))
	rec := &Record{Root: root, Command: o.Command, Owns: o.Owns}
	from := o.From
	if from == nil {
		from = []string{o.Command}
	}
	var m Manifest
	switch cmd, err := EarlierCommand(ctx, root); {
	case errors.Is(err, fs.ErrNotExist) && o.Manifest != nil:
		m = *o.Manifest
	case err != nil:
		return Adoption{}, err
	case !slices.Contains(from, cmd):
		return Adoption{}, fmt.Errorf("%s: manifest.json records a run of mtune %s, not %s", root, cmd, o.Command)
	default:
		if err := ReadJSON(ctx, storage.Join(root, manifestName), &m); err != nil {
			return Adoption{}, err
		}
	}
	files, err := storage.Stamps(ctx, root)
	if err != nil {
		return Adoption{}, err
	}
	rec.init()
	a := Adoption{Root: root}
	for _, f := range files {
		rel := rec.rel(f.Path)
		switch {
		case skip(rel):
		case o.Owns(rel):
			a.Files = append(a.Files, rel)
		default:
			d, err := digest(ctx, f)
			if err != nil {
				return Adoption{}, err
			}
			rec.kept[rel] = FileRecord{Path: rel, Digest: d, Stamp: f.Stamp}
			a.Kept = append(a.Kept, rel)
		}
	}
	if len(a.Files) == 0 {
		return Adoption{}, fmt.Errorf("%s holds no file mtune %s writes (%d others): nothing to adopt", root, o.Command, len(a.Kept))
	}
	slices.Sort(a.Files)
	slices.Sort(a.Kept)
	if m.Start.IsZero() {
		m.Start = time.Now().UTC()
	}
	// Record.Write lists the owned files (Update) with their digests.
	if err := rec.Write(ctx, m); err != nil {
		return Adoption{}, err
	}
	return a, nil
}

// String says what the adoption recorded, a line for the command's output.
func (a Adoption) String() string {
	s := fmt.Sprintf("%s: recorded %d files as mtune's", a.Root, len(a.Files))
	if len(a.Kept) > 0 {
		s += fmt.Sprintf("; kept %d as yours (%s)", len(a.Kept), strings.Join(a.Kept[:min(len(a.Kept), 5)], ", "))
		if len(a.Kept) > 5 {
			s += ", …"
		}
	}
	return s
}
