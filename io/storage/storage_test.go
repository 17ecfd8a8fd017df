package storage

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gcs "cloud.google.com/go/storage"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/mtune/mtune/testsupport/gcstest"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

const testBucket = "test-bucket"

// fakeGCS is an in-process GCS emulator listening on loopback, and an FS
// whose real GCS client talks HTTP to it.
type fakeGCS struct {
	srv *fakestorage.Server
	fs  *FS
}

// newFakeGCS starts an emulator with one empty bucket, testBucket, for the
// duration of the test.
func newFakeGCS(tb testing.TB) *fakeGCS {
	tb.Helper()
	c, srv := gcstest.Fake(tb, testBucket)
	return &fakeGCS{srv: srv, fs: &FS{GCS: c}}
}

// backend is one storage backend as the tests see it: an FS, a directory on
// it, and ways to read, write and list what is stored that bypass the
// package under test.
type backend struct {
	name string
	fs   *FS
	dir  string // an empty directory: a local path or gs://testBucket/PREFIX
	// raw returns the bytes stored at p, and whether there are any.
	raw func(t *testing.T, p string) ([]byte, bool)
	// put stores b at p as it is.
	put func(t *testing.T, p string, b []byte)
	// stored returns the sorted names of everything stored under dir,
	// recursively, relative to dir.
	stored func(t *testing.T) []string
}

func localBackend(t *testing.T) backend {
	dir := t.TempDir()
	return backend{
		name: "local",
		fs:   &FS{},
		dir:  dir,
		raw: func(t *testing.T, p string) ([]byte, bool) {
			b, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, false
			}
			if err != nil {
				t.Fatal(err)
			}
			return b, true
		},
		put: func(t *testing.T, p string, b []byte) {
			if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o666); err != nil {
				t.Fatal(err)
			}
		},
		stored: func(t *testing.T) []string {
			var names []string
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, err := filepath.Rel(dir, p)
				names = append(names, filepath.ToSlash(rel))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(names)
			return names
		},
	}
}

func gcsBackend(t *testing.T) backend {
	g := newFakeGCS(t)
	const prefix = "run/"
	object := func(t *testing.T, p string) string {
		bucket, object, err := parseGCS(p)
		if err != nil || bucket != testBucket {
			t.Fatalf("bad test path %q", p)
		}
		return object
	}
	return backend{
		name: "gcs",
		fs:   g.fs,
		dir:  "gs://" + testBucket + "/" + strings.TrimSuffix(prefix, "/"),
		raw: func(t *testing.T, p string) ([]byte, bool) {
			obj, err := g.srv.GetObject(testBucket, object(t, p))
			if err != nil {
				return nil, false
			}
			return obj.Content, true
		},
		put: func(t *testing.T, p string, b []byte) {
			g.srv.CreateObject(fakestorage.Object{
				ObjectAttrs: fakestorage.ObjectAttrs{BucketName: testBucket, Name: object(t, p)},
				Content:     b,
			})
		},
		stored: func(t *testing.T) []string {
			objs, _, err := g.srv.ListObjectsWithOptions(testBucket, fakestorage.ListOptions{Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range objs {
				names = append(names, strings.TrimPrefix(o.Name, prefix))
			}
			slices.Sort(names)
			return names
		},
	}
}

// forEachBackend runs f on a fresh local and a fresh GCS backend.
func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, mk := range []func(*testing.T) backend{localBackend, gcsBackend} {
		b := mk(t)
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// genText returns about size bytes of n-best-like text lines, the same for
// the same seed.
func genText(seed uint64, size int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0))
	words := strings.Fields("the a house of parliament commission european we must " +
		"report on this is that council member states president le la de ||| . ,")
	var buf bytes.Buffer
	buf.Grow(size + 200)
	for i := 0; buf.Len() < size; i++ {
		fmt.Fprintf(&buf, "%d |||", i/100)
		for n := 5 + rng.IntN(25); n > 0; n-- {
			buf.WriteByte(' ')
			buf.WriteString(words[rng.IntN(len(words))])
		}
		fmt.Fprintf(&buf, " ||| LM0= %.4f TM0= %.3f %.3f WordPenalty0= %d ||| %.5f\n",
			-rng.Float64()*100, -rng.Float64()*10, -rng.Float64()*10, -rng.IntN(40), -rng.Float64()*20)
	}
	return buf.Bytes()
}

// zstdCLI runs the zstd command-line tool, an independent implementation, on
// in with the given flags. It skips the calling subtest if the tool is
// missing.
func zstdCLI(t *testing.T, in []byte, flags ...string) []byte {
	exe, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("zstd command not installed")
	}
	cmd := exec.Command(exe, append(flags, "-c")...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd %v: %v: %s", flags, err, stderr.Bytes())
	}
	return out
}

var ctx = context.Background()

func TestRoundTrip(t *testing.T) {
	contents := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"one line", []byte("0 ||| la maison ||| LM0= -3.5 ||| -1.2\n")},
		{"1MiB", genText(1, 1<<20)},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, ext := range []string{".txt", ".gz", ".zst"} {
			for _, c := range contents {
				for _, how := range []string{"WriteFile", "Create"} {
					t.Run(ext+"/"+c.name+"/"+how, func(t *testing.T) {
						p := Join(b.dir, strings.ReplaceAll(c.name, " ", "_")+"."+how+ext)
						if how == "WriteFile" {
							if err := b.fs.WriteFile(ctx, p, c.data); err != nil {
								t.Fatal(err)
							}
						} else {
							w, err := b.fs.Create(ctx, p)
							if err != nil {
								t.Fatal(err)
							}
							// Uneven pieces, to cross buffer boundaries.
							for rest := c.data; len(rest) > 0; {
								n := min(len(rest), 1+len(rest)%7919)
								if _, err := w.Write(rest[:n]); err != nil {
									t.Fatal(err)
								}
								rest = rest[n:]
							}
							if err := w.Close(); err != nil {
								t.Fatal(err)
							}
						}

						// What is stored, checked without this package.
						raw, ok := b.raw(t, p)
						if !ok {
							t.Fatalf("nothing stored at %s", p)
						}
						var decoded []byte
						switch ext {
						case ".txt":
							decoded = raw
						case ".gz":
							decoded = testfile.Gunzip(t, raw)
						case ".zst":
							if !bytes.HasPrefix(raw, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
								t.Fatalf("stored .zst starts with % x, not the zstd magic number", raw[:min(4, len(raw))])
							}
							decoded = zstdCLI(t, raw, "-d")
						}
						if !bytes.Equal(decoded, c.data) {
							t.Fatalf("stored content decodes to %d bytes, want %d", len(decoded), len(c.data))
						}

						// And read back through the package.
						checkRead(t, b.fs, p, c.data)
						r, err := b.fs.Open(ctx, p)
						if err != nil {
							t.Fatal(err)
						}
						got, err := io.ReadAll(r)
						if err != nil {
							t.Fatal(err)
						}
						if err := r.Close(); err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, c.data) {
							t.Fatalf("Open: %d bytes, want %d", len(got), len(c.data))
						}
					})
				}
			}
		}
	})
}

// TestReadForeign reads files compressed by other implementations.
func TestReadForeign(t *testing.T) {
	data := genText(2, 300<<10)
	half := len(data) / 2
	cases := []struct {
		name string
		ext  string
		make func(t *testing.T) []byte
	}{
		{"stdlib gzip", ".gz", func(t *testing.T) []byte { return testfile.Gzip(t, data) }},
		{"gzip members concatenated", ".gz", func(t *testing.T) []byte {
			return append(testfile.Gzip(t, data[:half]), testfile.Gzip(t, data[half:])...)
		}},
		{"zstd CLI", ".zst", func(t *testing.T) []byte { return zstdCLI(t, data, "-3") }},
		{"zstd CLI frames concatenated", ".zst", func(t *testing.T) []byte {
			return append(zstdCLI(t, data[:half], "-1"), zstdCLI(t, data[half:], "-19")...)
		}},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				p := Join(b.dir, fmt.Sprintf("f%d%s", i, c.ext))
				b.put(t, p, c.make(t))
				checkRead(t, b.fs, p, data)
			})
		}
	})
}

// TestGCSContentEncodingGzip reads a .gz object stored with
// Content-Encoding: gzip, which GCS would otherwise decompress in transit.
func TestGCSContentEncodingGzip(t *testing.T) {
	g := newFakeGCS(t)
	data := genText(3, 10000)
	g.srv.CreateObject(fakestorage.Object{
		ObjectAttrs: fakestorage.ObjectAttrs{BucketName: testBucket, Name: "enc.gz", ContentEncoding: "gzip", ContentType: "text/plain"},
		Content:     testfile.Gzip(t, data),
	})
	checkRead(t, g.fs, "gs://"+testBucket+"/enc.gz", data)
}

func TestTruncatedAndCorrupt(t *testing.T) {
	data := genText(4, 200<<10)
	type cut struct {
		name       string
		mangle     func([]byte) []byte
		unexpected bool // the error must wrap io.ErrUnexpectedEOF
	}
	cuts := []cut{
		{"empty", func(b []byte) []byte { return nil }, true},
		{"first byte", func(b []byte) []byte { return b[:1] }, true},
		{"header only", func(b []byte) []byte { return b[:10] }, true},
		{"half", func(b []byte) []byte { return b[:len(b)/2] }, true},
		{"last byte missing", func(b []byte) []byte { return b[:len(b)-1] }, true},
		{"trailer missing", func(b []byte) []byte { return b[:len(b)-4] }, true},
		{"byte flipped", func(b []byte) []byte {
			c := bytes.Clone(b)
			c[len(c)/2] ^= 0x55
			return c
		}, false},
		{"trailing garbage", func(b []byte) []byte { return append(bytes.Clone(b), "garbage!"...) }, false},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, ext := range []string{".gz", ".zst"} {
			valid := Join(b.dir, "valid"+ext)
			if err := b.fs.WriteFile(ctx, valid, data); err != nil {
				t.Fatal(err)
			}
			full, _ := b.raw(t, valid)
			for i, c := range cuts {
				t.Run(ext+"/"+c.name, func(t *testing.T) {
					p := Join(b.dir, fmt.Sprintf("bad%d%s", i, ext))
					b.put(t, p, c.mangle(full))
					var err error
					r, err := b.fs.Open(ctx, p)
					if err == nil {
						_, err = io.ReadAll(r)
						r.Close()
					}
					if err == nil {
						t.Fatal("no error")
					}
					if !strings.Contains(err.Error(), p) {
						t.Errorf("error %q does not name %s", err, p)
					}
					if c.unexpected && !errors.Is(err, io.ErrUnexpectedEOF) {
						t.Errorf("error %q does not wrap io.ErrUnexpectedEOF", err)
					}
				})
			}
		}
	})
}

func TestNotExist(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		paths := []string{
			Join(b.dir, "missing.txt"),
			Join(b.dir, "missing.gz"),
			Join(b.dir, "no-dir", "missing.zst"),
		}
		if b.name == "gcs" {
			paths = append(paths, "gs://no-such-bucket/x.txt")
		}
		for _, p := range paths {
			t.Run(p, func(t *testing.T) {
				_, err := b.fs.Open(ctx, p)
				checkNotExist(t, "Open", p, err)
				_, err = b.fs.ReadFile(ctx, p)
				checkNotExist(t, "ReadFile", p, err)
				ok, err := b.fs.Exists(ctx, p)
				if ok || err != nil {
					t.Errorf("Exists = %v, %v; want false, nil", ok, err)
				}
			})
		}
	})
}

func TestWriteMissingBucket(t *testing.T) {
	g := newFakeGCS(t)
	p := "gs://no-such-bucket/x.gz"
	err := g.fs.WriteFile(ctx, p, []byte("data"))
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("WriteFile: error %v, want one naming %s", err, p)
	}
}

func checkNotExist(t *testing.T, op, p string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", op)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: error %q is not fs.ErrNotExist", op, err)
	}
	if !strings.Contains(err.Error(), p) {
		t.Errorf("%s: error %q does not name %s", op, err, p)
	}
}

func TestBadPaths(t *testing.T) {
	cases := []struct {
		path string
		want string // in the error of Open and Create
	}{
		{"gs://", "no bucket name"},
		{"gs:///object", "no bucket name"},
		{"gs://bucket", "no object name"},
		{"gs://bucket/", "no object name"},
		{"gs://bucket/dir/", `ends in "/"`},
		{"gs://Bad Bucket/x.txt", "bucket name"},
		{"gs://../../etc/passwd", "bucket name"},
		{"gs://b/../other/pt.gz", `".."`},
		{"gs://b/a/../x.txt", `".."`},
	}
	f := &FS{} // parse errors come before any client is needed
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			_, err := f.Open(ctx, c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("Open: error %v, want one naming %q and saying %q", err, c.path, c.want)
			}
			_, err = f.Create(ctx, c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("Create: error %v, want one naming %q and saying %q", err, c.path, c.want)
			}
		})
	}
	if f.lazy != nil {
		t.Error("a GCS client was created for invalid paths")
	}
	t.Run("local directory", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := f.Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "directory") {
			t.Errorf("Open: error %v, want one saying it is a directory", err)
		}
		if _, err := f.Create(ctx, dir); err == nil || !strings.Contains(err.Error(), "directory") {
			t.Errorf("Create: error %v, want one saying it is a directory", err)
		}
	})
	t.Run("local missing directory is made", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "no", "x.gz")
		if err := f.WriteFile(ctx, p, []byte("x\n")); err != nil {
			t.Fatalf("WriteFile into a missing folder: %v", err)
		}
		if got, err := f.ReadFile(ctx, p); err != nil || string(got) != "x\n" {
			t.Fatalf("ReadFile = %q, %v", got, err)
		}
	})
	t.Run("local parent is a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o666); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(file, "x.gz")
		if _, err := f.Create(ctx, p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Create under a file: error %v, want one naming %s", err, p)
		}
	})
}

// TestAtomic checks that a write that does not complete leaves the previous
// content, that readers during a write see the previous content, and that no
// temporary file is left behind.
func TestAtomic(t *testing.T) {
	const old = "old content\n"
	big := genText(5, 20<<20) // more than the GCS client's 16 MiB upload chunk
	type scenario struct {
		name    string
		data    []byte
		finish  func(t *testing.T, w *Writer, cancel context.CancelFunc) error // ends the write
		success bool
	}
	scenarios := []scenario{
		{"close", []byte("new content\n"), func(t *testing.T, w *Writer, _ context.CancelFunc) error {
			return w.Close()
		}, true},
		{"abort", []byte("new content\n"), func(t *testing.T, w *Writer, _ context.CancelFunc) error {
			if err := w.Abort(); err != nil {
				t.Fatalf("Abort: %v", err)
			}
			return w.Close()
		}, false},
		{"abort big", big, func(t *testing.T, w *Writer, _ context.CancelFunc) error {
			if err := w.Abort(); err != nil {
				t.Fatalf("Abort: %v", err)
			}
			return ErrAborted
		}, false},
		{"context cancelled before close", []byte("new content\n"), func(t *testing.T, w *Writer, cancel context.CancelFunc) error {
			cancel()
			return w.Close()
		}, false},
		{"context cancelled before close, big", big, func(t *testing.T, w *Writer, cancel context.CancelFunc) error {
			cancel()
			return w.Close()
		}, false},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, ext := range []string{".txt", ".gz", ".zst"} {
			for _, s := range scenarios {
				for _, existed := range []bool{true, false} {
					name := fmt.Sprintf("%s/%s/existed=%v", ext, s.name, existed)
					t.Run(name, func(t *testing.T) {
						p := Join(b.dir, fmt.Sprintf("%s-%v%s", strings.ReplaceAll(s.name, " ", "_"), existed, ext))
						if existed {
							if err := b.fs.WriteFile(ctx, p, []byte(old)); err != nil {
								t.Fatal(err)
							}
						}
						before := b.stored(t)
						wctx, cancel := context.WithCancel(ctx)
						defer cancel()
						w, err := b.fs.Create(wctx, p)
						if err != nil {
							t.Fatal(err)
						}
						if _, err := w.Write(s.data); err != nil {
							t.Fatal(err)
						}
						checkContent(t, b, p, existed, old, "during the write")
						if b.name == "local" {
							list, err := b.fs.List(ctx, b.dir)
							if err != nil {
								t.Fatal(err)
							}
							for _, l := range list {
								if strings.Contains(l, tempMarker) {
									t.Errorf("List during the write shows %s", l)
								}
							}
						}

						err = s.finish(t, w, cancel)
						if s.success {
							if err != nil {
								t.Fatal(err)
							}
							checkContent(t, b, p, true, string(s.data), "after Close")
						} else {
							if err == nil {
								t.Fatal("Close of a failed write returned nil")
							}
							checkContent(t, b, p, existed, old, "after the failed write")
						}
						after := b.stored(t)
						if !existed && s.success {
							before = append(before, p[len(b.dir)+1:])
							slices.Sort(before)
						}
						if !slices.Equal(before, after) {
							t.Errorf("stored before the write %q, after %q", before, after)
						}
						if err := w.Abort(); err != nil {
							t.Errorf("Abort after the end: %v", err)
						}
					})
				}
			}
		}
	})
}

// checkRead checks that f's ReadFile of p gives want.
func checkRead(t *testing.T, f *FS, p string, want []byte) {
	t.Helper()
	got, err := f.ReadFile(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("ReadFile(%s): %d bytes, want %d", p, len(got), len(want))
	}
}

// checkContent checks that p holds want, or nothing if !exists.
func checkContent(t *testing.T, b backend, p string, exists bool, want, when string) {
	t.Helper()
	got, err := b.fs.ReadFile(ctx, p)
	switch {
	case !exists && !errors.Is(err, fs.ErrNotExist):
		t.Fatalf("%s: ReadFile = %d bytes, %v; want a not-exist error", when, len(got), err)
	case exists && err != nil:
		t.Fatalf("%s: %v", when, err)
	case exists && string(got) != want:
		t.Fatalf("%s: content is %d bytes %.20q…, want %d bytes %.20q…", when, len(got), got, len(want), want)
	}
}

// TestCloseFailure makes the last step of a local write fail and checks that
// the previous file is intact and the temporary file removed.
func TestCloseFailure(t *testing.T) {
	cases := []struct {
		name     string
		sabotage func(s *localSink)
	}{
		{"file closed under the writer", func(s *localSink) { s.f.Close() }},
		{"temporary file removed", func(s *localSink) { os.Remove(s.tmp) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.gz")
			f := &FS{}
			if err := f.WriteFile(ctx, p, []byte("old")); err != nil {
				t.Fatal(err)
			}
			w, err := f.Create(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte("new")); err != nil {
				t.Fatal(err)
			}
			c.sabotage(w.sink.(*localSink))
			err = w.Close()
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Fatalf("Close: error %v, want one naming %s", err, p)
			}
			got, err := f.ReadFile(ctx, p)
			if err != nil || string(got) != "old" {
				t.Fatalf("after the failed Close: %q, %v; want %q", got, err, "old")
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries after the failed Close, want 1", len(entries))
			}
		})
	}
}

func TestWriterStates(t *testing.T) {
	cases := []struct {
		name  string
		steps func(w *Writer) error // returns the error of the last step
		want  error                 // nil: the last step succeeds
	}{
		{"close twice", func(w *Writer) error { w.Close(); return w.Close() }, ErrClosed},
		{"write after close", func(w *Writer) error { w.Close(); _, err := w.Write([]byte("x")); return err }, ErrClosed},
		{"close after abort", func(w *Writer) error { w.Abort(); return w.Close() }, ErrAborted},
		{"write after abort", func(w *Writer) error { w.Abort(); _, err := w.Write([]byte("x")); return err }, ErrAborted},
		{"abort twice", func(w *Writer) error { w.Abort(); return w.Abort() }, nil},
		{"abort after close", func(w *Writer) error { w.Close(); return w.Abort() }, nil},
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				p := Join(b.dir, fmt.Sprintf("s%d.gz", i))
				w, err := b.fs.Create(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				err = c.steps(w)
				if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
					t.Errorf("got error %v, want %v", err, c.want)
				}
			})
		}
	})
}

// listCase is a call of List, or Glob if glob, and what it must return.
type listCase struct {
	name    string
	glob    bool
	arg     string
	want    []string
	wantErr string // if not "", in the error, which must also name arg
}

func TestListGlob(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		files := []string{"a.gz", "b.gz", "c.txt", ".hidden", "sub/d.gz", "sub/e.gz"}
		for _, f := range files {
			b.put(t, Join(b.dir, f), []byte(f))
		}
		// Neighbours that share the directory's name as a prefix.
		parent, base := path.Dir(filepath.ToSlash(b.dir)), path.Base(filepath.ToSlash(b.dir))
		if b.name == "gcs" {
			parent = "gs://" + testBucket
		}
		for _, f := range []string{base + "x.gz", base + "2/y.gz"} {
			b.put(t, Join(parent, f), nil)
		}
		if b.name == "local" {
			// Directories are not listed, even with a matching name.
			if err := os.Mkdir(filepath.Join(b.dir, "dir.gz"), 0o777); err != nil {
				t.Fatal(err)
			}
		} else {
			// A "directory" placeholder object.
			b.put(t, b.dir+"/", nil)
		}
		in := func(names ...string) []string {
			var out []string
			for _, n := range names {
				out = append(out, Join(b.dir, n))
			}
			return out
		}
		cases := []listCase{
			{"list", false, b.dir, in(".hidden", "a.gz", "b.gz", "c.txt"), ""},
			{"list trailing slash", false, b.dir + "/", in(".hidden", "a.gz", "b.gz", "c.txt"), ""},
			{"list sub", false, Join(b.dir, "sub"), in("sub/d.gz", "sub/e.gz"), ""},
			{"glob *.gz", true, Join(b.dir, "*.gz"), in("a.gz", "b.gz"), ""},
			{"glob class", true, Join(b.dir, "[ac].*"), in("a.gz", "c.txt"), ""},
			{"glob ?", true, Join(b.dir, "?.gz"), in("a.gz", "b.gz"), ""},
			{"glob literal", true, Join(b.dir, "c.txt"), in("c.txt"), ""},
			{"glob escaped", true, Join(b.dir, `\c.txt`), in("c.txt"), ""},
			{"glob sub", true, Join(b.dir, "sub", "*"), in("sub/d.gz", "sub/e.gz"), ""},
			{"glob no match", true, Join(b.dir, "*.zst"), nil, ""},
			{"glob bad pattern", true, Join(b.dir, "[a"), nil, "syntax error in pattern"},
		}
		if b.name == "gcs" {
			cases = append(cases, []listCase{
				{"list bucket root", false, "gs://" + testBucket, []string{"gs://" + testBucket + "/" + base + "x.gz"}, ""},
				{"list missing prefix", false, "gs://" + testBucket + "/nothing", nil, ""},
				{"list missing bucket", false, "gs://no-such-bucket/x", nil, "does not exist"},
				{"glob wildcard in directory", true, "gs://" + testBucket + "/*/a.gz", nil, "last path element"},
			}...)
		} else {
			cases = append(cases, []listCase{
				{"list missing directory", false, Join(b.dir, "nothing"), nil, "no such file"},
				{"glob wildcard in directory", true, Join(b.dir, "s*", "d.*"), in("sub/d.gz"), ""},
			}...)
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var got []string
				var err error
				if c.glob {
					got, err = b.fs.Glob(ctx, c.arg)
				} else {
					got, err = b.fs.List(ctx, c.arg)
				}
				if c.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), c.arg) {
						t.Fatalf("got %q, %v; want an error naming %s and saying %q", got, err, c.arg, c.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, c.want) {
					t.Fatalf("got  %q\nwant %q", got, c.want)
				}
			})
		}
	})
}

type existsCase struct {
	path string
	want bool
}

func TestExists(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		b.put(t, Join(b.dir, "there.gz"), []byte("x"))
		b.put(t, Join(b.dir, "sub", "deep.txt"), []byte("x"))
		cases := []existsCase{
			{Join(b.dir, "there.gz"), true},
			{Join(b.dir, "sub", "deep.txt"), true},
			{Join(b.dir, "there"), false},
			{Join(b.dir, "missing.gz"), false},
		}
		if b.name == "gcs" {
			cases = append(cases, []existsCase{
				{"gs://" + testBucket, true},
				{"gs://" + testBucket + "/", true},
				{"gs://no-such-bucket", false},
				{"gs://no-such-bucket/x", false},
			}...)
		} else {
			cases = append(cases, existsCase{Join(b.dir, "sub"), true})
		}
		for _, c := range cases {
			t.Run(c.path, func(t *testing.T) {
				got, err := b.fs.Exists(ctx, c.path)
				if err != nil || got != c.want {
					t.Fatalf("Exists = %v, %v; want %v, nil", got, err, c.want)
				}
			})
		}
	})
	if _, err := (&FS{}).Exists(ctx, "gs://"); err == nil {
		t.Error("Exists(gs://): no error")
	}
}

func TestJoin(t *testing.T) {
	cases := []struct {
		elem []string
		want string
	}{
		{[]string{"gs://b", "run1", "nbest.gz"}, "gs://b/run1/nbest.gz"},
		{[]string{"gs://b/", "nbest.gz"}, "gs://b/nbest.gz"},
		{[]string{"gs://b/run1/", "/x/", "y"}, "gs://b/run1/x/y"},
		{[]string{"gs://", "b", "x"}, "gs://b/x"},
		{[]string{"", "gs://b", "x"}, "gs://b/x"},
		{[]string{"gs://b"}, "gs://b"},
		{[]string{"gs://b/m/v1", "../lm.gz"}, "gs://b/m/lm.gz"},
		{[]string{"gs://b/m", "../lm.gz"}, "gs://b/lm.gz"},
		{[]string{"gs://b/m", "x/../../y"}, "gs://b/y"},
		{[]string{"gs://b/m", ".."}, "gs://b"},
		{[]string{"gs://b/m", "../../other/pt.gz"}, "gs://b/../other/pt.gz"},
		{[]string{"gs://b/m", "../../../../etc/passwd"}, "gs://b/../../../etc/passwd"},
		{[]string{"/data/m", "../../../x"}, "/x"},
		{[]string{"/data", "run1", "nbest.gz"}, filepath.Join("/data", "run1", "nbest.gz")},
		{[]string{"run1/", "x"}, filepath.Join("run1", "x")},
		{[]string{"", "x"}, "x"},
		{nil, ""},
	}
	for _, c := range cases {
		if got := Join(c.elem...); got != c.want {
			t.Errorf("Join(%q) = %q, want %q", c.elem, got, c.want)
		}
	}
}

func TestResolve(t *testing.T) {
	cases := []struct {
		name, dir, p string
		want         string
		err          bool
	}{
		{"gs:// relative", "gs://b/m", "pt.gz", "gs://b/m/pt.gz", false},
		{"gs:// .. within the bucket", "gs://b/m/v1", "../../pt.gz", "gs://b/pt.gz", false},
		{"gs:// .. into another bucket", "gs://b/m", "../../other/pt.gz", "", true},
		{"gs:// .. above every bucket", "gs://b/m", "../../../../etc/passwd", "", true},
		{"gs:// .. from the bucket's root", "gs://b", "../x", "", true},
		{"gs:// p", "gs://b/m", "gs://c/x/pt.gz", "gs://c/x/pt.gz", false},
		{"absolute p", "gs://b/m", "/abs/pt.gz", "/abs/pt.gz", false},
		{"local relative", "/ini/dir", "pt.gz", filepath.Join("/ini/dir", "pt.gz"), false},
		{"local .. as the user gave it", "/ini/dir", "../../x/pt.gz", filepath.Join("/ini/dir", "../../x/pt.gz"), false},
		{"relative local folder", "models", "../x", filepath.Join("models", "../x"), false},
		{"empty p", "gs://b/m", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.dir, c.p)
			if c.err {
				if err == nil || !strings.Contains(err.Error(), c.p) || !strings.HasPrefix(err.Error(), "storage: ") {
					t.Fatalf("Resolve(%q, %q) = %q, %v; want an error naming %s", c.dir, c.p, got, err, c.p)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Resolve(%q, %q) = %q, %v; want %q", c.dir, c.p, got, err, c.want)
			}
		})
	}
}

func TestIsGCS(t *testing.T) {
	cases := []struct {
		path string
		want bool
	}{
		{"gs://b/x", true},
		{"gs://", true},
		{"gs:/b/x", false},
		{"/gs://b", false},
		{"s3://b/x", false},
		{"nbest.gz", false},
	}
	for _, c := range cases {
		if got := IsGCS(c.path); got != c.want {
			t.Errorf("IsGCS(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

// TestDefaultClient checks the package functions: through SetGCSClient, and
// through the client made on first use, which follows STORAGE_EMULATOR_HOST.
func TestDefaultClient(t *testing.T) {
	g := newFakeGCS(t)
	p := "gs://" + testBucket + "/default.zst"
	data := []byte("through the package functions\n")

	SetGCSClient(g.fs.GCS)
	t.Cleanup(func() { SetGCSClient(nil) })
	if err := WriteFile(ctx, p, data); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(ctx, p)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile = %q, %v; want %q", got, err, data)
	}
	if ok, err := Exists(ctx, p); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	if l, err := List(ctx, "gs://"+testBucket); err != nil || !slices.Equal(l, []string{p}) {
		t.Fatalf("List = %q, %v", l, err)
	}
	if l, err := Glob(ctx, "gs://"+testBucket+"/*.zst"); err != nil || !slices.Equal(l, []string{p}) {
		t.Fatalf("Glob = %q, %v", l, err)
	}

	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(g.srv.URL(), "http://"))
	lazy := &FS{}
	got, err = lazy.ReadFile(ctx, p)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("lazy client: ReadFile = %q, %v; want %q", got, err, data)
	}
	if lazy.lazy == nil {
		t.Fatal("no lazy client was made")
	}
	lazy.lazy.Close()
}

// TestSharedNbest reads a real gzip n-best list and compares it with the
// standard library's decoding.
func TestSharedNbest(t *testing.T) {
	p := shared.Path(t, "nbest", "europarl100", "nbest.gz")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := testfile.Gunzip(t, raw)
	got, err := ReadFile(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, the standard library %d", len(got), len(want))
	}
}

// BenchmarkRead reads a generated 50 MB n-best-like file compressed with
// gzip (and zstd for comparison). MB/s is of decompressed bytes.
func BenchmarkRead(b *testing.B) {
	data := genText(6, 50<<20)
	dir := b.TempDir()
	for _, ext := range []string{".gz", ".zst", ".txt"} {
		if err := WriteFile(ctx, filepath.Join(dir, "nbest"+ext), data); err != nil {
			b.Fatal(err)
		}
	}
	read := func(b *testing.B, open func() (io.ReadCloser, error)) {
		b.SetBytes(int64(len(data)))
		buf := make([]byte, 64<<10)
		for b.Loop() {
			r, err := open()
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				k, err := r.Read(buf)
				n += k
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			r.Close()
			if n != len(data) {
				b.Fatalf("read %d bytes, want %d", n, len(data))
			}
		}
	}
	for _, ext := range []string{".gz", ".zst", ".txt"} {
		p := filepath.Join(dir, "nbest"+ext)
		b.Run("Open"+ext, func(b *testing.B) {
			read(b, func() (io.ReadCloser, error) { return Open(ctx, p) })
		})
	}
	b.Run("stdlib-gzip.gz", func(b *testing.B) {
		p := filepath.Join(dir, "nbest.gz")
		read(b, func() (io.ReadCloser, error) {
			f, err := os.Open(p)
			if err != nil {
				return nil, err
			}
			zr, err := stdgzip.NewReader(f)
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{zr, f}, nil
		})
	})
}

// TestGCSUnreachable points the client at a GCS that answers 503, that
// refuses connections and that never answers: every operation must give
// up once the timeout has passed, with an error naming the path and
// saying GCS is unreachable; each retry of a failed request is logged.
func TestGCSUnreachable(t *testing.T) {
	const timeout = 2 * time.Second
	dir := "gs://" + testBucket + "/run1"
	p := dir + "/x.txt"
	servers := []struct {
		name   string
		client func(testing.TB) *gcs.Client
		logged bool // the requests fail (rather than wait), so retries are logged
	}{
		{"503", gcstest.Unavailable, true},
		{"refused", gcstest.Refused, true},
		{"silent", gcstest.Silent, false},
	}
	ops := []struct {
		name, op string
		call     func(f *FS) error
	}{
		{"open", "open", func(f *FS) error { _, err := f.Open(ctx, p); return err }},
		{"read file", "open", func(f *FS) error { _, err := f.ReadFile(ctx, p); return err }},
		{"exists", "stat", func(f *FS) error { _, err := f.Exists(ctx, p); return err }},
		{"identity", "stat", func(f *FS) error { _, err := f.Identity(ctx, p); return err }},
		{"list", "list", func(f *FS) error { _, err := f.List(ctx, dir); return err }},
		{"glob", "glob", func(f *FS) error { _, err := f.Glob(ctx, dir+"/x.*"); return err }},
		{"walk", "walk", func(f *FS) error { _, err := f.Walk(ctx, dir); return err }},
		{"remove", "remove", func(f *FS) error { return f.Remove(ctx, p) }},
		{"write file", "close", func(f *FS) error { return f.WriteFile(ctx, p, []byte("x\n")) }},
		{"read version", "read", func(f *FS) error { _, _, err := f.ReadVersion(ctx, p); return err }},
		{"write if version", "write", func(f *FS) error { _, err := f.WriteIfVersion(ctx, p, []byte("x\n"), 0); return err }},
		{"remove if version", "remove", func(f *FS) error { return f.RemoveIfVersion(ctx, p, 7) }},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			c := srv.client(t)
			for _, tc := range ops {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					var logs bytes.Buffer
					var mu sync.Mutex
					f := &FS{GCS: c, Timeout: timeout, Logger: slog.New(slog.NewTextHandler(syncWriter{&mu, &logs}, nil))}
					errc := make(chan error, 1)
					go func() { errc <- tc.call(f) }()
					var err error
					select {
					case err = <-errc:
					case <-time.After(time.Minute): // a guard against a hang, not a measure
						t.Fatalf("no answer after a minute: %s is not bounded by the %s timeout", tc.name, timeout)
					}
					if err == nil {
						t.Fatal("no error from an unreachable GCS")
					}
					if msg := err.Error(); !strings.HasPrefix(msg, "storage: "+tc.op+" "+dir) || !strings.Contains(msg, "GCS unreachable") || !strings.Contains(msg, " in 2s") {
						t.Errorf("error %q, want \"storage: %s %s…: GCS unreachable … in 2s: …\"", msg, tc.op, dir)
					}
					mu.Lock()
					l := logs.String()
					mu.Unlock()
					if srv.logged && (!strings.Contains(l, "level=WARN") || !strings.Contains(l, "attempt=1") || !strings.Contains(l, "path="+dir)) {
						t.Errorf("retries not logged: %q", l)
					}
				})
			}
		})
	}
}

// syncWriter serializes the writes to w.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestOpenAt reads a file from offsets on each backend: from the start,
// the middle, the end; refuses a compressed file, a negative offset and
// one past the end.
func TestOpenAt(t *testing.T) {
	data := []byte("one\ntwo\nthree\n")
	forEachBackend(t, func(t *testing.T, b backend) {
		p := Join(b.dir, "lines.txt")
		if err := b.fs.WriteFile(ctx, p, data); err != nil {
			t.Fatal(err)
		}
		for _, off := range []int64{0, 4, 8, int64(len(data))} {
			r, err := b.fs.OpenAt(ctx, p, off)
			if err != nil {
				t.Fatalf("OpenAt %d: %v", off, err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || string(got) != string(data[off:]) {
				t.Errorf("OpenAt %d: read %q, %v; want %q", off, got, err, data[off:])
			}
		}
		for _, off := range []int64{-1, int64(len(data)) + 1} {
			if _, err := b.fs.OpenAt(ctx, p, off); err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("OpenAt %d: %v, want an error naming %s", off, err, p)
			}
		}
		gz := Join(b.dir, "lines.txt.gz")
		if err := b.fs.WriteFile(ctx, gz, data); err != nil {
			t.Fatal(err)
		}
		if _, err := b.fs.OpenAt(ctx, gz, 4); !errors.Is(err, ErrNotSeekable) || !strings.Contains(err.Error(), gz) {
			t.Errorf("OpenAt of %s: %v, want ErrNotSeekable naming it", gz, err)
		}
		if _, err := b.fs.OpenAt(ctx, Join(b.dir, "missing.txt"), 0); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("OpenAt of a missing file: %v, want fs.ErrNotExist", err)
		}
	})
	if _, err := OpenAt(ctx, filepath.Join(t.TempDir(), "x"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenAt of a missing local file: %v", err)
	}
}

// TestIdentity: a file's identity stays while it is unchanged and changes
// when it is rewritten; a missing file's is an fs.ErrNotExist error.
func TestIdentity(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		p := Join(b.dir, "table.gz")
		if err := b.fs.WriteFile(ctx, p, []byte("a ||| b ||| 1\n")); err != nil {
			t.Fatal(err)
		}
		id1, err := b.fs.Identity(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := b.fs.Identity(ctx, p); err != nil || again != id1 {
			t.Errorf("identity %q then %q (%v)", id1, again, err)
		}
		time.Sleep(10 * time.Millisecond) // a new modification time
		if err := b.fs.WriteFile(ctx, p, []byte("a ||| c ||| 1\n")); err != nil {
			t.Fatal(err)
		}
		if id2, err := b.fs.Identity(ctx, p); err != nil || id2 == id1 {
			t.Errorf("rewritten: identity %q (%v), was %q", id2, err, id1)
		}
		if _, err := b.fs.Identity(ctx, Join(b.dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing: %v, want fs.ErrNotExist", err)
		}
	})
}
