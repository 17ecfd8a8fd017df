package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/testfile"
)

// TestNoPartialOutput: a command that fails part-way writes nothing to
// standard output, where rerank used to write the 1-bests read before
// the bad line (16 KiB of a Marian list, 4 KiB before a NaN at line 201,
// 8 KiB of a fairseq file refused for a gap in its ids), leaving a
// partial file where its output was redirected.
func TestNoPartialOutput(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("word ", 12) // 60 bytes a 1-best
	var marian, moses, fairseq strings.Builder
	for i := range 300 {
		fmt.Fprintf(&marian, "%d ||| %s%d ||| F0= -1.5 ||| -1.5\n", i, long, i)
		fmt.Fprintf(&fairseq, "S-%d\tsource %d\nH-%d\t-0.5\t%s%d\n", i, i, i, long, i)
	}
	marian.WriteString("300 ||| cut ||| F0= x ||| -1\n")
	fmt.Fprintf(&fairseq, "H-301\t-0.5\t%s\n", long) // sentence 300 missing
	for i := range 200 {
		fmt.Fprintf(&moses, "%d ||| %s%d ||| LM0= -2 TM0= -1 ||| -3\n", i, long, i)
	}
	moses.WriteString("200 ||| nan ||| LM0= NaN TM0= -1 ||| -3\n")
	for _, tc := range []struct {
		name, list, weights, where string
	}{
		{"marian list bad after 16 KiB", marian.String(), "F0= 1\n", "marian.nbest:301"},
		{"moses list NaN at line 201", moses.String(), "LM0= 1\nTM0= 1\n", "moses.nbest:201"},
		{"fairseq gap in ids", fairseq.String(), "fairseq= 1\n", "fairseq.nbest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.Fields(tc.name)[0] + ".nbest"
			list := testfile.Write(t, dir, name, tc.list)
			w := testfile.Write(t, dir, name+".weights", tc.weights)
			code, out, errOut := mtune(t, "", "rerank", "--weights", w, "--nbest", list)
			if code != 1 || !strings.Contains(errOut, tc.where) {
				t.Fatalf("exit %d, stderr %q; want a failure at %s", code, errOut, tc.where)
			}
			if out != "" {
				t.Errorf("%d bytes written to standard output before failing: %.60q…", len(out), out)
			}
		})
	}
}
