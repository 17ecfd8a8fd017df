package tune

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/rundir"
)

// TestStaleOptionsManifest checks stale mode's options as the manifest
// records them from their one declaration: a manifest written before the
// declaration (Threads and MaxStaleness by hand) reads the same, writes
// the same keys back, and --resume names a changed bound.
func TestStaleOptionsManifest(t *testing.T) {
	earlier := `{"Mode":"stale","Mix":"average","Algo":"adagrad","Shards":2,"Epochs":3,"NBest":100,"MiniBatch":8,"Threads":3,"MaxStaleness":2,"Rate":0.1}`
	var f rundir.ManifestFlags
	if err := json.Unmarshal([]byte(earlier), &f); err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range f.Settings() {
		settings[s.Flag] = s.Value
	}
	if settings["threads"] != "3" || settings["max-staleness"] != "2" || settings["rate"] != "0.1" {
		t.Fatalf("settings of the earlier manifest: %v", settings)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back, want map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(earlier), &want)
	for k, v := range want {
		if back[k] != v {
			t.Errorf("written back: %s = %v, want %v (%s)", k, back[k], v, b)
		}
	}

	// The run of today records its options from the declaration.
	now := f
	o := StaleOptions{Threads: 3, MaxStaleness: 4}
	now.Method = option.Record(&o)
	if d := f.Diff(now); !slices.Equal(d, []string{"--max-staleness: 2 in the run, 4 now"}) {
		t.Errorf("diff %q", d)
	}
	// In ipm mode the options are not recorded (ForMode), as before.
	ipm := StaleOptions{Threads: 2}
	option.ForMode(&ipm, IPM.String())
	if vals := option.Record(&ipm); len(vals) != 0 {
		t.Errorf("ipm mode records %v", vals)
	}
	// A value of the wrong type is named, not taken as zero.
	var bad rundir.ManifestFlags
	if err := json.Unmarshal([]byte(`{"Mode":"stale","MaxStaleness":"two"}`), &bad); err != nil {
		t.Fatal(err)
	}
	if d := bad.Diff(f); len(d) == 0 || !strings.Contains(strings.Join(d, ";"), `unreadable "two"`) {
		t.Errorf("diff of an unreadable bound: %q", d)
	}
}

// TestRunStaleRefusesBadOptions: a negative thread count or bound is
// refused by the declaration's bounds, before any work.
func TestRunStaleRefusesBadOptions(t *testing.T) {
	for _, o := range []StaleOptions{{Threads: -1}, {MaxStaleness: -1}} {
		if _, err := RunStale(t.Context(), nil, 3, nil, nil, o); err == nil {
			t.Errorf("%+v taken", o)
		}
	}
}
