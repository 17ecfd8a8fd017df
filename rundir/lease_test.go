package rundir

import (
	"context"
	"encoding/json"
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

// TestLeaseExpiry: a lease not renewed for its TTL is taken over, and its
// former holder then finds it lost when it renews. The judge's clock runs
// ahead of the store's by the offset.
func TestLeaseExpiry(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			p := storage.Join(dir, LeaseName)
			var offset time.Duration
			now := func() time.Time { return time.Now().Add(offset) }
			a, err := AcquireLease(ctx, p, LeaseOptions{TTL: time.Minute, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			offset = 50 * time.Second
			if _, err := AcquireLease(ctx, p, LeaseOptions{TTL: time.Minute, Now: now}); !errors.Is(err, ErrBusy) {
				t.Fatalf("acquire before expiry: %v, want busy", err)
			}
			offset = 65 * time.Second
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

// TestLeaseJudge: a lease file another process left is judged by the
// store's time of its last write, with the judge's TTL (a minute), and
// by what this process can know of its holder, never by the expiry or TTL
// the holder wrote. The judge's clock runs ahead of the store's by the
// case's offset (the time since the lease was last written).
func TestLeaseJudge(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1) to make a dead pid:", err)
	}
	me := thisProcess()
	if me.BootID == "" || me.PIDNS == "" || me.StartTime == 0 {
		t.Skip("no /proc boot id, PID namespace or start time on this system")
	}
	parent, err := processStartTime(os.Getppid())
	if err != nil {
		t.Skip("cannot read the parent's start time:", err)
	}
	here := func(pid int, start uint64) LeaseInfo {
		h := me
		h.Owner, h.PID, h.StartTime, h.Token, h.TTLSeconds = "mtune retrain", pid, start, "x", 60
		h.Since, h.Expiry = time.Now().UTC(), time.Now().Add(time.Minute).UTC()
		return h
	}
	otherNS := func() LeaseInfo {
		h := here(dead.Process.Pid, 12345)
		h.PIDNS = "pid:[1]"
		return h
	}
	tests := []struct {
		name   string
		holder func() LeaseInfo
		offset time.Duration // since the lease file was written
		taken  bool          // the lease is taken over (else busy)
	}{
		{"dead pid, same kernel and PID namespace", func() LeaseInfo { return here(dead.Process.Pid, 12345) }, 0, true},
		{"live pid, its start time", func() LeaseInfo { return here(os.Getppid(), parent) }, 0, false},
		{"live pid reused by another process", func() LeaseInfo { return here(os.Getppid(), parent+1) }, 0, true},
		{"dead pid in another PID namespace (a container with the same host name)", otherNS, 0, false},
		{"dead pid of another boot", func() LeaseInfo {
			h := here(dead.Process.Pid, 12345)
			h.BootID = "00000000-0000-0000-0000-000000000000"
			return h
		}, 0, false},
		{"dead pid in a lease of an earlier version", func() LeaseInfo {
			return LeaseInfo{Owner: "mtune tune", Host: me.Host, PID: dead.Process.Pid, Token: "x",
				Since: time.Now().UTC(), Expiry: time.Now().Add(time.Minute).UTC()}
		}, 0, false},
		{"another container, within the judge's TTL", otherNS, 55 * time.Second, false},
		{"another container, after the judge's TTL", otherNS, 65 * time.Second, true},
		{"another host claiming 2099, not renewed for the judge's TTL", func() LeaseInfo {
			return LeaseInfo{Owner: "mtune retrain", Host: "elsewhere", PID: 1, Token: "x", TTLSeconds: 60,
				Since: time.Now().UTC(), Expiry: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}
		}, 65 * time.Second, true},
		{"another host claiming 2099, no TTL recorded", func() LeaseInfo {
			return LeaseInfo{Owner: "mtune retrain", Host: "elsewhere", PID: 1, Token: "x",
				Since: time.Now().UTC(), Expiry: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}
		}, 65 * time.Second, true},
		{"another host whose clock runs behind, renewed just now", func() LeaseInfo {
			return LeaseInfo{Owner: "mtune retrain", Host: "elsewhere", PID: 1, Token: "x", TTLSeconds: 60,
				Since: time.Now().Add(-time.Hour).UTC(), Expiry: time.Now().Add(-time.Hour).UTC()}
		}, 0, false},
	}
	ctx := context.Background()
	for name, dir := range folders(t) {
		for i, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				p := storage.Join(dir, strconv.Itoa(i), LeaseName)
				b, _ := json.Marshal(tc.holder())
				if err := storage.WriteFile(ctx, p, b); err != nil {
					t.Fatal(err)
				}
				l, err := AcquireLease(ctx, p, LeaseOptions{TTL: time.Minute, Now: func() time.Time { return time.Now().Add(tc.offset) }})
				if tc.taken {
					if err != nil {
						t.Fatalf("acquire: %v, want the lease taken over", err)
					}
					l.Release(ctx)
					return
				}
				if !errors.Is(err, ErrBusy) {
					t.Fatalf("acquire: %v, want busy", err)
				}
			})
		}
	}
}

// TestLeaseRecordsItsJudgement: a lease records its TTL and what tells its
// process apart from any other (boot id, PID namespace, start time).
func TestLeaseRecordsItsJudgement(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), LeaseName)
	l, err := AcquireLease(ctx, p, LeaseOptions{TTL: 42 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	var got LeaseInfo
	if err := ReadJSON(ctx, p, &got); err != nil {
		t.Fatal(err)
	}
	me := thisProcess()
	if got.TTLSeconds != 42 || got.BootID != me.BootID || got.PIDNS != me.PIDNS || got.StartTime != me.StartTime || got.PID != os.Getpid() {
		t.Errorf("lease %+v, want TTL 42 s and this process's %+v", got, me)
	}
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

// TestLeaseFromTheFuture: a lease whose store time is a day ahead of the
// judge's clock (a clock set back since, a touched file) is busy when
// first judged and stale a TTL after that first judgement, not a day
// later; a renewal since (another version of the file) is judged anew.
func TestLeaseFromTheFuture(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // firstSeen's records
	const ttl = time.Minute
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			p := storage.Join(dir, "future", LeaseName)
			write := func(since time.Time) {
				b, _ := json.Marshal(LeaseInfo{Owner: "mtune retrain", Host: "elsewhere", PID: 1, Token: "x", TTLSeconds: 60,
					Since: since, Expiry: since.Add(time.Minute)})
				if err := storage.WriteFile(ctx, p, b); err != nil {
					t.Fatal(err)
				}
			}
			write(time.Now().UTC())
			first := time.Now().Add(-24 * time.Hour) // the judge's clock, a day behind the store's
			judge := func(at time.Time) error {
				l, err := AcquireLease(ctx, p, LeaseOptions{TTL: ttl, Now: func() time.Time { return at }})
				if err == nil {
					l.Release(ctx)
				}
				return err
			}
			var busy *BusyError
			if err := judge(first); !errors.As(err, &busy) {
				t.Fatalf("first judgement: %v, want busy", err)
			}
			if err := judge(first.Add(ttl / 2)); !errors.As(err, &busy) {
				t.Fatalf("within the TTL of the first judgement: %v, want busy", err)
			}
			// Renewed: a new version, first seen now.
			write(time.Now().UTC())
			renewed := first.Add(ttl)
			if err := judge(renewed); !errors.As(err, &busy) {
				t.Fatalf("just after a renewal: %v, want busy", err)
			}
			if err := judge(renewed.Add(ttl + 5*time.Second)); err != nil {
				t.Fatalf("a TTL after the renewal was first seen (the store's time still a day ahead): %v, want the lease taken over", err)
			}
		})
	}
}

// TestLeaseJudgesWithItsOwnTTL: whether a lease is stale is judged with
// the judge's TTL whatever ttl_seconds the file holds (a year, out of
// float64's or time.Duration's range, negative, not a number), and a
// store time ahead of the judge's clock counts as the judge's first sight
// of it: the lease is busy until the judge's now plus its TTL, not until
// that time plus the TTL (and TestLeaseFromTheFuture: no longer).
func TestLeaseJudgesWithItsOwnTTL(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // firstSeen's records
	const ttl = time.Minute
	tests := []struct {
		name   string
		ttl    string        // ttl_seconds as written in the file
		offset time.Duration // the judge's clock ahead of the store's
		taken  bool
	}{
		{"a year, within the judge's TTL", "31536000", 55 * time.Second, false},
		{"a year, after the judge's TTL", "31536000", 65 * time.Second, true},
		{"1e10, within", "1e10", 55 * time.Second, false},
		{"1e10, after", "1e10", 65 * time.Second, true},
		{"1e300, within", "1e300", 55 * time.Second, false},
		{"1e300, after", "1e300", 65 * time.Second, true},
		{"1e400, within", "1e400", 55 * time.Second, false},
		{"1e400, after", "1e400", 65 * time.Second, true},
		{"negative, within", "-30", 55 * time.Second, false},
		{"negative, after", "-30", 65 * time.Second, true},
		{"the string NaN, within", `"NaN"`, 55 * time.Second, false},
		{"the string NaN, after", `"NaN"`, 65 * time.Second, true},
		{"the string Infinity, after", `"Infinity"`, 65 * time.Second, true},
		{"null, after", "null", 65 * time.Second, true},
		{"written a day ahead of the judge's clock", "60", -24 * time.Hour, false},
		{"written a day ahead, ttl_seconds of a year", "31536000", -24 * time.Hour, false},
	}
	ctx := context.Background()
	for name, dir := range folders(t) {
		for i, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				p := storage.Join(dir, "ttl"+strconv.Itoa(i), LeaseName)
				b, _ := json.Marshal(LeaseInfo{Owner: "mtune retrain", Host: "elsewhere", PID: 1, Token: "x", TTLSeconds: 60,
					Since: time.Now().UTC(), Expiry: time.Now().Add(time.Minute).UTC()})
				b = []byte(strings.Replace(string(b), `"ttl_seconds":60`, `"ttl_seconds":`+tc.ttl, 1))
				if err := storage.WriteFile(ctx, p, b); err != nil {
					t.Fatal(err)
				}
				now := func() time.Time { return time.Now().Add(tc.offset) }
				l, err := AcquireLease(ctx, p, LeaseOptions{TTL: ttl, Now: now})
				if tc.taken {
					if err != nil {
						t.Fatalf("acquire: %v, want the lease taken over", err)
					}
					l.Release(ctx)
					return
				}
				var busy *BusyError
				if !errors.As(err, &busy) {
					t.Fatalf("acquire: %v, want busy", err)
				}
				if latest := now().Add(ttl); busy.Stale.After(latest) {
					t.Errorf("busy until %v, after the judge's now plus its TTL (%v)", busy.Stale, latest)
				}
			})
		}
	}
}
