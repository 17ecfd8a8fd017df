package rundir

import (
	"context"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
)

// TestCompleteDigests: the complete marker records every file of its
// epoch but work/; CompleteEpochs refuses the last complete epoch once a
// file it recorded changed or went, naming the file, and ignores work/
// and the files of earlier epochs (the next epoch reads only the last).
func TestCompleteDigests(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			l := Layout{Root: dir}
			write := func(p, text string) {
				t.Helper()
				if err := storage.WriteFile(ctx, p, []byte(text)); err != nil {
					t.Fatal(err)
				}
			}
			for n := 1; n <= 2; n++ {
				e := l.Epoch(n)
				write(e.JSON(), `{"names":["LM0"],"values":[0.5]}`)
				write(e.ShardState(0), `{"state":1}`)
				write(e.PoolPart(0).NBest, "0 ||| a ||| LM0= 1 ||| 1\n")
				write(e.MixReport(), `{}`)
				if err := WriteComplete(ctx, e, Metrics{Epoch: n}); err != nil {
					t.Fatal(err)
				}
			}
			var mk completeMarker
			if err := ReadJSON(ctx, l.Epoch(2).Complete(), &mk); err != nil {
				t.Fatal(err)
			}
			if len(mk.Files) != 3 || mk.Files["weights.json"] == "" || mk.Files["state/shard-000.json"] == "" || mk.Files["pool/part-00000.nbest.gz"] == "" {
				t.Fatalf("the marker records %v", mk.Files)
			}
			if ms, err := CompleteEpochs(ctx, l); err != nil || len(ms) != 2 {
				t.Fatalf("untouched: %d epochs, %v", len(ms), err)
			}
			write(l.Epoch(2).MixReport(), `{"x":1}`)
			write(l.Epoch(1).JSON(), `{"names":["LM0"],"values":[0.7]}`)
			if _, err := CompleteEpochs(ctx, l); err != nil {
				t.Fatalf("work/ or an earlier epoch changed: %v", err)
			}
			for _, tc := range []struct {
				file string
				edit func(p string)
				want string
			}{
				{l.Epoch(2).JSON(), func(p string) { write(p, `{"names":["LM0"],"values":[0.6]}`) }, "changed after epoch 2 completed"},
				{l.Epoch(2).ShardState(0), func(p string) { storage.Remove(ctx, p) }, "now unreadable"},
			} {
				data, _ := storage.ReadFile(ctx, tc.file)
				tc.edit(tc.file)
				_, err := CompleteEpochs(ctx, l)
				if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s edited: %v, want an error naming it, %q", tc.file, err, tc.want)
				}
				write(tc.file, string(data))
			}
			if _, err := CompleteEpochs(ctx, l); err != nil {
				t.Fatalf("files put back: %v", err)
			}
		})
	}
}
