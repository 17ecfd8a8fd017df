// Package testsupport is the root of mtune's test-only packages: shared
// finds ../shared/data, europarl100 loads the europarl100 n-best lists,
// gcstest runs a GCS emulator on loopback, parsetest and testfile write
// and read test files, randpool and learntest make random n-best pools
// (learntest also round-trips the learners' saved states), floattest
// compares float slices bit for bit, decodertest registers a fake decoder
// that re-ranks fixed n-best lists, gobuild builds mtune for the tests
// that run it as a process, htmltest checks the HTML reports and
// storagetest the code that reads and writes through io/storage. Nothing outside _test.go files and benchmarks
// imports them; internal/ keeps the low-level helpers the product itself
// uses.
package testsupport
