package tune

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// folders returns a fresh local folder and a fresh gs:// prefix on an
// in-process GCS emulator (loopback), by name.
func folders(t *testing.T) map[string]string { return storagetest.Folders(t, "runs") }

func TestLeaseExclusive(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			p := storage.Join(dir, LeaseName)
			a, err := AcquireLease(ctx, p, LeaseOptions{Owner: "first"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = AcquireLease(ctx, p, LeaseOptions{Owner: "second"})
			var busy *BusyError
			if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) || busy.Holder.Owner != "first" || busy.Holder.PID != os.Getpid() {
				t.Fatalf("second acquire: %v, want busy with the first holder", err)
			}
			if !strings.Contains(err.Error(), "first") {
				t.Errorf("busy message %q does not name the holder", err)
			}
			if err := a.Renew(ctx); err != nil {
				t.Fatalf("renew: %v", err)
			}
			if err := a.Release(ctx); err != nil {
				t.Fatal(err)
			}
			b, err := AcquireLease(ctx, p, LeaseOptions{Owner: "second"})
			if err != nil {
				t.Fatalf("acquire after release: %v", err)
			}
			b.Release(ctx)
		})
	}
}

// TestLeaseRace: of many processes racing for one free lease exactly one
// wins.
func TestLeaseRace(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			p := storage.Join(dir, LeaseName)
			var wg sync.WaitGroup
			var mu sync.Mutex
			won, busy := 0, 0
			for i := 0; i < 8; i++ {
				wg.Go(func() {
					_, err := AcquireLease(ctx, p, LeaseOptions{})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						won++
					case errors.Is(err, ErrBusy):
						busy++
					default:
						t.Errorf("acquire: %v", err)
					}
				})
			}
			wg.Wait()
			if won != 1 || busy != 7 {
				t.Fatalf("%d won, %d busy; want 1 and 7", won, busy)
			}
		})
	}
}

// TestLeaseExpiry: an expired lease is taken over, and its former holder
// then finds it lost when it renews.
func TestLeaseExpiry(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			p := storage.Join(dir, LeaseName)
			clock := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
			now := func() time.Time { return clock }
			a, err := AcquireLease(ctx, p, LeaseOptions{TTL: time.Minute, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			clock = clock.Add(59 * time.Second)
			if _, err := AcquireLease(ctx, p, LeaseOptions{TTL: time.Minute, Now: now}); !errors.Is(err, ErrBusy) {
				t.Fatalf("acquire before expiry: %v, want busy", err)
			}
			clock = clock.Add(2 * time.Second)
			b, err := AcquireLease(ctx, p, LeaseOptions{TTL: time.Minute, Now: now})
			if err != nil {
				t.Fatalf("acquire after expiry: %v", err)
			}
			if err := a.Renew(ctx); !errors.Is(err, ErrLeaseLost) {
				t.Fatalf("renew of the lapsed lease: %v, want ErrLeaseLost", err)
			}
			if err := a.Release(ctx); err != nil {
				t.Fatalf("release of a lost lease: %v", err)
			}
			if _, v, _ := storage.ReadVersion(ctx, p); v == 0 {
				t.Fatal("the former holder's release removed the new holder's lease")
			}
			b.Release(ctx)
		})
	}
}

// TestLeaseDeadHolder: a lease whose process is gone on this host is taken
// over at once, expired or not.
func TestLeaseDeadHolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, LeaseName)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	host, _ := os.Hostname()
	dead := `{"owner":"mtune tune","host":"` + host + `","pid":` + strconv.Itoa(cmd.Process.Pid) + `,"token":"x","since":"2026-11-24T00:00:00Z","expiry":"2999-01-01T00:00:00Z"}`
	if err := os.WriteFile(p, []byte(dead), 0o666); err != nil {
		t.Fatal(err)
	}
	l, err := AcquireLease(ctx, p, LeaseOptions{})
	if err != nil {
		t.Fatalf("acquire over a dead holder: %v", err)
	}
	l.Release(ctx)
}

// TestLeaseHoldRenews: Hold renews the lease before it lapses, and its
// context is cancelled with ErrLeaseLost when another process takes it.
func TestLeaseHoldRenews(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), LeaseName)
	l, err := AcquireLease(ctx, p, LeaseOptions{TTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hctx := l.Hold(ctx)
	first := l.Info().Expiry
	deadline := time.Now().Add(10 * time.Second)
	for !l.Info().Expiry.After(first) {
		if time.Now().After(deadline) {
			t.Fatal("the lease was never renewed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Another process replaces the lease file behind the holder's back.
	if err := os.WriteFile(p, []byte(`{"owner":"thief","host":"elsewhere","pid":1,"expiry":"2999-01-01T00:00:00Z"}`), 0o666); err != nil {
		t.Fatal(err)
	}
	select {
	case <-hctx.Done():
		if !errors.Is(context.Cause(hctx), ErrLeaseLost) {
			t.Fatalf("cause %v, want ErrLeaseLost", context.Cause(hctx))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the holder did not notice it lost the lease")
	}
	l.Release(ctx)
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "thief") {
		t.Fatal("release removed the other holder's lease")
	}
}
