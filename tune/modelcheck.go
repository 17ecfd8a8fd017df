package tune

import (
	"os"
	"time"
)

// ModelCheck is init/model.json (rundir.Layout.ModelCheck): what a worker found
// when it loaded the model before the run's first epoch. The driver never
// loads the model itself (DESIGN.md §10); it reads this file instead.
type ModelCheck struct {
	// Decoder is the registered decoder's name.
	Decoder string `json:"decoder"`
	// Features is the number of feature names the loaded decoder knows.
	Features int `json:"features"`
	// LoadSeconds is how long the load took on the worker (zero when the
	// worker had it loaded already).
	LoadSeconds float64 `json:"load_seconds"`
	// Host is the worker's host name.
	Host string `json:"host"`
}

// CheckModel describes dec, the decoder registered as name, which took
// load to load.
func CheckModel(name string, dec Decoder, load time.Duration) ModelCheck {
	host, _ := os.Hostname()
	return ModelCheck{Decoder: name, Features: dec.Features().Len(), LoadSeconds: load.Seconds(), Host: host}
}
