// Package storagetest is test support for code that reads and writes
// through io/storage: the package functions bound to an in-process GCS
// emulator for the length of a test, and a local folder and a gs:// prefix
// to run one test on both.
package storagetest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/gcstest"
)

// UseGCS makes io/storage's package functions use the client c for gs://
// paths until the test ends.
func UseGCS(tb testing.TB, c *gcs.Client) {
	tb.Helper()
	storage.SetGCSClient(c)
	tb.Cleanup(func() { storage.SetGCSClient(nil) })
}

// Folders starts a GCS emulator with the bucket, binds io/storage to it
// (UseGCS) and returns, by name, a fresh local folder ("local") and a
// fresh gs:// prefix in the bucket named after the test ("gcs").
func Folders(tb testing.TB, bucket string) map[string]string {
	tb.Helper()
	c, _ := gcstest.Fake(tb, bucket)
	UseGCS(tb, c)
	return map[string]string{
		"local": filepath.Join(tb.TempDir(), bucket),
		"gcs":   "gs://" + bucket + "/" + strings.ReplaceAll(tb.Name(), "/", "-"),
	}
}

// Read returns the value of a versioned read (storage.ReadVersion's
// shape, as registry.Registry's ReadPointer and ReadHistory), dropping the
// version; an error fails the test.
func Read[T any](tb testing.TB, read func(context.Context) (T, int64, error)) T {
	tb.Helper()
	v, _, err := read(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// EarlierManifest rewrites the manifest.json at path as an mtune before
// the record wrote it (mtune adopt's input): no schema, command or record
// of files; command_line ["mtune", command, …] and a version.
func EarlierManifest(tb testing.TB, path, command string) {
	tb.Helper()
	ctx := context.Background()
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	for _, k := range []string{"schema", "schema_version", "command", "files", "kept"} {
		delete(m, k)
	}
	m["command_line"], m["version"] = []string{"mtune", command, "--out", "OUT"}, "v0.9.0"
	if data, err = json.Marshal(m); err != nil {
		tb.Fatal(err)
	}
	if err := storage.WriteFile(ctx, path, data); err != nil {
		tb.Fatal(err)
	}
}
