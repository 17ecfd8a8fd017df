package pipelines

import (
	"slices"
	"testing"
	"time"

	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/rundir"
)

// TestSummary: what ran (resumed epochs, the best epoch's score by what
// it is) and the lines naming the output, with the decode command that
// uses the best weights unless an external decoder ran.
func TestSummary(t *testing.T) {
	dev := 21.5
	res := Result{Epochs: []rundir.Metrics{{Epoch: 1, TuneScore: 10}, {Epoch: 2, TuneScore: 12, DevScore: &dev}, {Epoch: 3, TuneScore: 11, TuneDecoded: true}},
		Best: 2, BestWeights: "/r/best/weights.json", Resumed: 2}
	o := Options{Settings: run.Settings{Out: "/r"}, Problem: run.Problem{Config: "/m/moses.ini"}, Sparse: []string{"pt", "lo"}, SearchAlgorithm: "cube"}
	ran, files := Summary(res, o, 1500*time.Millisecond)
	if want := "1 epoch in 1.5 s (epochs 1-2 resumed); best: epoch 2 of 3, dev BLEU 21.50"; ran != want {
		t.Errorf("ran %q, want %q", ran, want)
	}
	want := []string{"report:  /r/report.html", "weights: /r/best/weights.json (dense and sparse; metrics: /r/metrics.jsonl)",
		"decode:  mtune decode --config /m/moses.ini --weights /r/best/weights.json --sparse pt,lo --search-algorithm cube INPUT > OUTPUT"}
	if !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}

	res.Best, res.Resumed = 3, 1
	if ran, _ := Summary(res, o, time.Second); ran != "2 epochs in 1.0 s (epoch 1 resumed); best: epoch 3 of 3, tune BLEU (decoded) 11.00" {
		t.Errorf("ran %q", ran)
	}
	res.Epochs = append(res.Epochs, rundir.Metrics{Epoch: 3, Replica: 1, TuneScore: 14})
	res.Best, res.BestReplica, res.Resumed = 3, 1, 0
	o.Replicas, o.DecoderCommand = 2, "moses"
	ran, files = Summary(res, o, time.Second)
	if ran != "3 epochs in 1.0 s of 2 replicas; best: replica 1, epoch 3 of 3, tune BLEU 14.00" || len(files) != 2 {
		t.Errorf("replicas, external decoder: %q, %q", ran, files)
	}
}
