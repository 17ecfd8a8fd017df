// Package tune owns what a tuning run means, apart from how it is run
// (DESIGN.md §8): the run folder of DESIGN.md §6 (RunDir), and the lease
// that keeps two processes from writing one folder at once (Lease). It
// imports no Beam: the pipelines and the commands call it.
package tune
