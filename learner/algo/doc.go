// Package algo makes any of mtune's learners by name, for the --algo flag
// of `mtune tune-nbest` and of the tuning pipeline.
//
// Each learner is described by an Info in a file named after it (mert.go,
// pro.go, kbmira.go, mr.go, svm.go, adagrad.go, sgd.go, mira.go, oro.go):
// its summary, whether it is online, its losses, its defaults (mini-batch,
// learning rate), the settings of Config it reads and its constructor.
// The registry in algo.go lists them; Lookup, Names, Config.Validate and
// New read the descriptions, so a new learner is its code (in
// learner/online, learner/batch or its own package), its Info file here
// and one line in the registry.
//
// Config carries the settings the command-line flags give; a zero field
// leaves the learner's own default (the paper's or Moses').
// DefaultOnline and DefaultBatch name the learners used when none is
// chosen.
package algo
