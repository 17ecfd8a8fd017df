package tune

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "epoch 2/3: 8/20 sentences decoded, ") {
		t.Fatalf("progress line %q, want 8/20 from the two files", lines[0])
	}
	if last := lines[len(lines)-1]; !regexp.MustCompile(`^epoch 2/3: 8/20 sentences decoded in \d+ s$`).MatchString(last) {
		t.Errorf("closing line %q, want the launch's count of 8/20", last)
	}
	n := len(lines)
	stop() // a second call prints nothing more
	if got := strings.Count(out.String(), "\n"); got != n {
		t.Errorf("a second stop printed %d more lines", got-n)
	}
}

// TestProgressFlush: the writes progressWriteEvery holds back are made
// when a shard's learning ends (flushDecoded), so that once a launch's job
// has ended its workers' files hold every sentence they decoded: the
// closing line counts them all.
func TestProgressFlush(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "progress")
	o := DecodeOptions{Progress: dir}
	for range 5 {
		countDecoded(ctx, o, 1) // the first is written, the rest held back
	}
	file := filepath.Join(dir, "decoded-"+processTag)
	if data, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(data)) != "1" {
		t.Fatalf("before the flush: %q, %v; want 1 (the later writes held back)", data, err)
	}
	flushDecoded(ctx, o)
	if data, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(data)) != "5" {
		t.Fatalf("after the flush: %q, %v; want 5", data, err)
	}
	// A short launch prints no closing line: nothing was printed before it.
	var out syncBuffer
	WatchDecoding(ctx, &out, "epoch 1/1", 5, time.Hour, dir)()
	if out.String() != "" {
		t.Errorf("a launch shorter than one tick printed %q", out.String())
	}
}
