// Package storagetest is test support for code that reads and writes
// through io/storage: the package functions bound to an in-process GCS
// emulator for the length of a test, and a local folder and a gs:// prefix
// to run one test on both.
package storagetest

import (
	"context"
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
