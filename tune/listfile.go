package tune

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/mtune/mtune/io/storage"
)

// ListFile is a file of an epoch's n-best lists (NBest, gob-encoded,
// gzipped) that line-search mixing reads once the shards' average exists:
// the lists wait there, on disk or GCS, instead of in the runner's memory
// (prism holds a PCollection that waits for a side input whole), so that
// an epoch's memory does not grow with the tuning set (issue 35). A
// worker writes one a bundle of lists; its name is random, so that a
// retried bundle never writes over a file a committed bundle listed.
type ListFile struct {
	path string
	w    *storage.Writer
	enc  *gob.Encoder
}

// CreateListFile creates a list file in the folder dir.
func CreateListFile(ctx context.Context, dir string) (*ListFile, error) {
	var tag [8]byte
	rand.Read(tag[:])
	p := storage.Join(dir, "lists-"+hex.EncodeToString(tag[:])+".gob.gz")
	w, err := storage.Create(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("tune: list file: %w", err)
	}
	return &ListFile{path: p, w: w, enc: gob.NewEncoder(w)}, nil
}

// Path is the file's path.
func (f *ListFile) Path() string { return f.path }

// Add writes n to the file.
func (f *ListFile) Add(n NBest) error {
	if err := f.enc.Encode(n); err != nil {
		return fmt.Errorf("tune: write %s: sentence %d: %w", f.path, n.Sent, err)
	}
	return nil
}

// Close completes the file: only then may it be read.
func (f *ListFile) Close() error {
	if err := f.w.Close(); err != nil {
		return fmt.Errorf("tune: write %s: %w", f.path, err)
	}
	return nil
}

// Abort discards the file.
func (f *ListFile) Abort() { f.w.Abort() }

// ReadListFile calls fn with each list of the list file path, in the
// order they were written.
func ReadListFile(ctx context.Context, path string, fn func(NBest) error) error {
	r, err := storage.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("tune: list file: %w", err)
	}
	defer r.Close()
	dec := gob.NewDecoder(bufio.NewReader(r))
	for k := 1; ; k++ {
		var n NBest
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("tune: read %s: list %d: %w", path, k, err)
		}
		if err := fn(n); err != nil {
			return err
		}
	}
}
