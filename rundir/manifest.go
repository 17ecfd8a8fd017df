package rundir

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/io/storage"
)

// Manifest is manifest.json: what a command of mtune (tune, build,
// tune-nbest, retrain's registry) records of its output folder, with the
// record of every file it wrote there (Record).
type Manifest struct {
	// Schema and SchemaVersion are ManifestSchema and
	// ManifestSchemaVersion, Command the command whose folder this is:
	// set by Record.Write.
	Schema        string        `json:"schema"`
	SchemaVersion int           `json:"schema_version"`
	Command       string        `json:"command"`
	CommandLine   []string      `json:"command_line"`
	Version       string        `json:"version"`
	Inputs        []InputFile   `json:"inputs"`
	Seed          uint64        `json:"seed"`
	Init          string        `json:"init,omitempty"`
	Options       ManifestFlags `json:"options"`
	Start         time.Time     `json:"start"`
	End           *time.Time    `json:"end,omitempty"`
	// Status is "starting" (the folder's record, written when an empty
	// folder is opened, before the run's own manifest), "running", "done"
	// or "failed".
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// ReplicaSeeds are the seeds of the replicas of a run of several
	// (--replicas; tune's ReplicaSeed, the first is Seed), absent for a run of
	// one.
	ReplicaSeeds []uint64 `json:"replica_seeds,omitempty"`
	// Files are the files the command wrote into the folder, with the
	// digests of their bytes; Kept those it found there and left (the
	// user's, or changed since written), never recorded while unchanged.
	Files []FileRecord `json:"files"`
	Kept  []FileRecord `json:"kept,omitempty"`
}

// ManifestFlags records the options that shape the result; --resume
// refuses to continue a run whose flags (other than Epochs) differ.
type ManifestFlags struct {
	Mode, Mix, Algo string
	// Metric is what the run tunes toward (--metric) when not BLEU ("" is
	// BLEU, as in a manifest written before it was recorded).
	Metric string `json:",omitempty"`
	// MetricSpec is the --metric spec in its canonical form
	// (metric.Canonical) when it sets options of the metric's
	// ("bleu:tokenize=13a", "ter:case=true"); "" is the metric's defaults,
	// as in a manifest written before options were recorded.
	MetricSpec string `json:",omitempty"`
	// Search is the search algorithm set by --search-algorithm ("" is the
	// moses.ini's).
	Search string `json:",omitempty"`
	// Decoder is the external decoder's command line (--decoder; "" is
	// the in-process decoder).
	Decoder string `json:",omitempty"`
	// FeatureCommands are batch mode's --feature-command values,
	// NAME=CMD (none: no added feature).
	FeatureCommands []string `json:",omitempty"`
	Epochs, NBest   int
	MiniBatch       int
	// Replicas is the number of independent runs (--replicas) when more
	// than one (0 is one).
	Replicas int `json:",omitempty"`
	// Sparse lists the sparse templates, comma-separated ("" = none).
	Sparse string `json:",omitempty"`
	// Method holds the options declared once where they are used
	// (internal/option: stale mode's --threads and --max-staleness, ipm's
	// --eval-tune, batch mode's --keep-scale, …),
	// as option.Record gives them: in JSON each sits beside the fields
	// above under its Go name (MarshalJSON), as earlier manifests wrote
	// the same options by hand.
	Method option.Values `json:"-"`
	// The learner's settings; nil L1/L2 mean the learner's default.
	Loss  string   `json:",omitempty"`
	L1    *float64 `json:",omitempty"`
	L2    *float64 `json:",omitempty"`
	Noise float64  `json:",omitempty"`
	// NoiseType is "gaussian" for Gaussian noising ("" is dropout, the
	// default); NoiseUnlabeled the unlabelled pairs a list of its
	// regulariser.
	NoiseType      string `json:",omitempty"`
	NoiseUnlabeled int    `json:",omitempty"`
	// The batch learners' search: MERT's restarts, random directions and
	// restart range, kb-MIRA's C and decay (zero: the defaults).
	Restarts, RandomDirections int         `json:",omitempty"`
	RestartRange               *[2]float64 `json:",omitempty"`
	MIRAC, MIRADecay           float64     `json:",omitempty"`
	Rate                       float64     `json:",omitempty"`
}

// SetMetricSpec records spec, a canonical --metric spec, as MetricSpec
// when it sets options (has a "key=value" part), else clears MetricSpec.
func (f *ManifestFlags) SetMetricSpec(spec string) {
	f.MetricSpec = ""
	if strings.Contains(spec, "=") {
		f.MetricSpec = spec
	}
}

// StatusStarting is the status of the manifest Open writes into an empty
// folder, before the command writes its own.
const StatusStarting = "starting"

// Setting is one option of a run as its manifest records it: the flag's
// name and its value, defaults spelt out ("the moses.ini's", "none").
type Setting struct {
	Flag, Value string
}

// Settings lists every option of the run f records but Epochs, in the
// order of mtune help tune's groups of flags: what --resume compares
// (Diff) and the report shows.
func (f ManifestFlags) Settings() []Setting {
	show := func(p *float64) string {
		if p == nil {
			return "the default"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	quote := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	rows := []Setting{
		{"mode", f.Mode}, {"mix", f.Mix}, {"algo", f.Algo}, {"metric", cmp.Or(f.MetricSpec, f.Metric, "BLEU")},
		{"search-algorithm", cmp.Or(f.Search, "the moses.ini's")},
		{"decoder", cmp.Or(f.Decoder, "in process")},
		{"feature-command", quote(strings.Join(f.FeatureCommands, "; "))},
		{"replicas", strconv.Itoa(max(1, f.Replicas))}, {"nbest", strconv.Itoa(f.NBest)},
		{"minibatch", strconv.Itoa(f.MiniBatch)}, {"sparse", quote(f.Sparse)},
	}
	rows = append(rows, f.methodSettings()...)
	return append(rows, []Setting{
		{"loss", quote(f.Loss)}, {"l1", show(f.L1)}, {"l2", show(f.L2)},
		{"noise", num(f.Noise)},
		{"noise-type", cmp.Or(f.NoiseType, "dropout")},
		{"noise-unlabeled", strconv.Itoa(f.NoiseUnlabeled)},
		{"restarts", strconv.Itoa(f.Restarts)},
		{"random-directions", strconv.Itoa(f.RandomDirections)},
		{"restart-range", showRange(f.RestartRange)},
		{"mira-c", num(f.MIRAC)},
		{"mira-decay", num(f.MIRADecay)},
		{"rate", num(f.Rate)},
	}...)
}

// methodSettings lists the declared options (option.Declared) that f's
// mode uses, as f.Method records them; a value that does not read as its
// option's type is shown as recorded, so that --resume names it.
func (f ManifestFlags) methodSettings() []Setting {
	var out []Setting
	for _, d := range option.Declared() {
		err := option.Load(d, f.Method)
		fields := option.Recorded(d) // in the order of Settings
		for i, s := range option.Settings(d) {
			fd := fields[i]
			switch {
			case f.Mode != "" && !fd.Applies(f.Mode):
				continue
			case err != nil:
				s.Value = "unreadable " + string(f.Method[fd.Key])
			}
			out = append(out, Setting(s))
		}
	}
	return out
}

// manifestFlags is ManifestFlags without its JSON methods.
type manifestFlags ManifestFlags

// MarshalJSON writes f's fields and, beside them, its Method's values,
// sorted by key.
func (f ManifestFlags) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(manifestFlags(f))
	if err != nil || len(f.Method) == 0 {
		return b, err
	}
	buf := bytes.NewBuffer(b[:len(b)-1])
	for i, k := range slices.Sorted(maps.Keys(f.Method)) {
		if i > 0 || len(b) > 2 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		if err := json.Compact(buf, f.Method[k]); err != nil {
			return nil, fmt.Errorf("rundir: option %s: %w", k, err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads f's fields, and every other key into Method.
func (f *ManifestFlags) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	if err := json.Unmarshal(b, (*manifestFlags)(f)); err != nil {
		return err
	}
	f.Method = nil
	for k, v := range all {
		if !slices.Contains(flagFieldNames, k) {
			if f.Method == nil {
				f.Method = option.Values{}
			}
			f.Method[k] = v
		}
	}
	return nil
}

// flagFieldNames are the JSON keys of ManifestFlags' own fields.
var flagFieldNames = func() []string {
	var out []string
	t := reflect.TypeFor[manifestFlags]()
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("json") != "-" {
			out = append(out, t.Field(i).Name)
		}
	}
	return out
}()

// Diff lists the options that differ between the run's f and g (Epochs
// aside), each as "--flag: VALUE in the run, VALUE now"; an option only
// one of the runs' modes uses is named by the mode's difference.
func (f ManifestFlags) Diff(g ManifestFlags) []string {
	now := map[string]string{}
	for _, s := range g.Settings() {
		now[s.Flag] = s.Value
	}
	var out []string
	for _, s := range f.Settings() {
		if v, ok := now[s.Flag]; ok && v != s.Value {
			out = append(out, fmt.Sprintf("--%s: %s in the run, %s now", s.Flag, s.Value, v))
		}
	}
	return out
}

// Version is mtune's version as a manifest records it: the module's
// version and, where the binary was built from a checkout, its commit.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += " " + s.Value
			}
		}
		return v
	}
	return "unknown"
}

// InputFile is an input path and the sha256 of its content.
type InputFile struct {
	Role   string `json:"role"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Checksum returns the sha256 of path's (decompressed) content, read as a
// stream.
func Checksum(ctx context.Context, role, path string) (InputFile, error) {
	r, err := storage.Open(ctx, path)
	if err != nil {
		return InputFile{}, fmt.Errorf("rundir: %s: %w", role, err)
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return InputFile{}, fmt.Errorf("rundir: %s: %w", role, err)
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
	return fmt.Errorf("rundir: --resume of the run in %s with other options or inputs: %s; continue it with the same ones, or start a new run with --overwrite or another --out",
		out, strings.Join(diffs, "; "))
}

// Finish records how the run of manifest man ended (done, or failed with
// err) in the manifest.json of the run folder d, with the record of every
// file the run wrote, and redraws its report.html (r), recorded too, even
// if ctx is cancelled, and returns err (or the error of writing them). A run stopped
// by ctx (an interrupt, a lost lease) says so in its error.
func Finish(ctx context.Context, d *RunDir, r Report, man Manifest, err error) error {
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (stopped: %v)", err, context.Cause(ctx))
	}
	end := time.Now().UTC()
	man.End = &end
	man.Status = "done"
	if err != nil {
		man.Status, man.Error = "failed", err.Error()
	}
	wctx := context.WithoutCancel(ctx)
	if werr := d.WriteManifest(wctx, man); werr != nil && err == nil {
		err = werr
	}
	// The report shows the status just written; the record then lists it.
	if werr := r.Write(wctx); werr != nil && err == nil {
		err = werr
	}
	if werr := d.Checkpoint(wctx); werr != nil && err == nil {
		err = werr
	}
	return err
}

// showRange formats a restart range for Diff.
func showRange(r *[2]float64) string {
	if r == nil {
		return "the default"
	}
	return strconv.FormatFloat(r[0], 'g', -1, 64) + "," + strconv.FormatFloat(r[1], 'g', -1, 64)
}
