package pipelines

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadNBests feeds arbitrary bytes to the reader of batch mode's
// n-best files: no panic, and what it accepts re-encodes to lists that
// read back equal.
func FuzzReadNBests(f *testing.F) {
	f.Add([]byte(`{"Sent":7,"Names":["LM0_0","pp_we~nous"],"Hyps":[{"Target":"we","Features":{"IDs":[0,1],"Vals":[-40,1]},"Stats":{"order":4,"matches":[1,0,0,0,0,0],"totals":[1,0,0,0,0,0],"ref_len":1}}]}` + "\n"))
	f.Add([]byte("{}\n{\"Sent\":1}\n"))
	f.Add([]byte(`{"Sent":1,"Names":["a"],"Hyps":[{"Features":{"IDs":[3],"Vals":[1]}}]}`))
	f.Add([]byte("{\"Sent\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		dir := t.TempDir()
		p := filepath.Join(dir, "nbest.jsonl")
		if err := os.WriteFile(p, data, 0o666); err != nil {
			t.Fatal(err)
		}
		got, err := readNBests(ctx, p)
		if err != nil {
			return
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, n := range got {
			if err := enc.Encode(n); err != nil {
				t.Fatal(err)
			}
		}
		q := filepath.Join(dir, "again.jsonl")
		if err := os.WriteFile(q, b.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
		again, err := readNBests(ctx, q)
		if err != nil {
			t.Fatalf("re-encoded lists do not read back: %v", err)
		}
		if len(again) != len(got) {
			t.Fatalf("%d lists, %d after a round trip", len(got), len(again))
		}
		for i := range got {
			x, _ := json.Marshal(got[i])
			y, _ := json.Marshal(again[i])
			if !bytes.Equal(x, y) {
				t.Fatalf("list %d: %s, after a round trip %s", i, x, y)
			}
		}
	})
}
