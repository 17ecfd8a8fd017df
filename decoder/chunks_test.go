package decoder

import (
	"strings"
	"testing"
	"time"
)

// TestProgress drives the decode progress printer with a fake clock: no
// line in the first progressInterval, then at most one a progressInterval,
// none when all is done.
func TestProgress(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var now time.Time
	var out strings.Builder
	now = t0
	p := newProgress(&out, 1000, func() time.Time { return now })
	steps := []struct {
		at   time.Duration
		done int
		want string // the line printed, "" for none
	}{
		{1 * time.Second, 100, ""},
		{4 * time.Second, 200, ""},
		{5 * time.Second, 250, "decode: 250/1000 sentences, 50.0 sentences/s, 15s left\n"},
		{8 * time.Second, 400, ""},
		{10 * time.Second, 500, "decode: 500/1000 sentences, 50.0 sentences/s, 10s left\n"},
		{20 * time.Second, 1000, ""},
	}
	for _, s := range steps {
		now = t0.Add(s.at)
		out.Reset()
		p.update(s.done)
		if out.String() != s.want {
			t.Errorf("at %v, %d done: printed %q, want %q", s.at, s.done, out.String(), s.want)
		}
	}
}
