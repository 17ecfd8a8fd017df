package tune

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for WatchDecoding's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressFiles: a process's decodings under a progress folder are
// written there, and WatchDecoding counts the files of every process,
// those of processes it does not share a counter with included (worker
// processes, Dataflow's workers).
func TestProgressFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "progress")
	countDecoded(ctx, DecodeOptions{Progress: dir}, 3)
	data, err := os.ReadFile(filepath.Join(dir, "decoded-"+processTag))
	if err != nil || strings.TrimSpace(string(data)) != "3" {
		t.Fatalf("this process's progress file: %q, %v", data, err)
	}
	// Another process's file; this process decodes nothing more.
	if err := os.WriteFile(filepath.Join(dir, "decoded-otherhost-42-1a2b3c4d"), []byte("5\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	stop := WatchDecoding(ctx, &out, "epoch 2/3", 20, time.Millisecond, dir)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "\n") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(first, "epoch 2/3: 8/20 sentences decoded, ") {
		t.Fatalf("progress line %q, want 8/20 from the two files", first)
	}
}
