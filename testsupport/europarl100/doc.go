// Package europarl100 loads Moses' europarl100 n-best lists for tests and
// benchmarks.
//
// The data lives in the shared data folder (see testsupport/shared), never in
// the repository:
//
//	nbest/europarl100/init.weights   start weights, kbmira --dense-init style
//	nbest/europarl100/reference      one lower-cased reference per sentence
//	nbest/europarl100/nbest.gz       100 sentences × 100-best, Moses format
//
// A sample of init.weights and of an n-best line:
//
//	d= 0.3
//	d= 0.3
//	…
//	0||| this should also be there is looking further .  ||| d: 0 -7.66174 0 0 -3.51621 0 0 lm: -41.3435 -40.3647 tm: -67.6349 -100.438 -27.6817 -23.4685 8.99907 w: -9 ||| -14.6262
//
// Load and Shared find the folder with shared.Path, so a test that calls
// them is skipped when the data is missing and fails when CI=true. The
// hypotheses are pooled and de-duplicated by poolfile.Load and scored with
// BLEU-4 statistics against reference (SharedMetric: another metric's
// statistics, as tune-nbest --metric scores them); the pool holds 10000
// hypotheses.
package europarl100
