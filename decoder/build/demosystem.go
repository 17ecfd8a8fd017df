package build

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/io/storage"
)

// A demo system is the embedded demo built into a folder DIR: the corpus
// of Demo (seed 1) in DIR/corpus and the model built from its training
// part in DIR, whose tuning part tunes it and whose test part is its dev
// set. `mtune tune` and `mtune retrain` use the one in OUT/demo-model when
// given no moses.ini.

// DemoIn returns the paths of the demo system in dir, built or not: its
// moses.ini and its corpus's tuning and test files (DIR/corpus/tune.src,
// tune.ref, test.src, test.ref).
func DemoIn(dir string) (config string, files DemoFiles) {
	corpus := storage.Join(dir, "corpus")
	return storage.Join(dir, ConfigFile), DemoFiles{
		TuneSrc: storage.Join(corpus, "tune.src"), TuneRef: storage.Join(corpus, "tune.ref"),
		TestSrc: storage.Join(corpus, "test.src"), TestRef: storage.Join(corpus, "test.ref"),
	}
}

// BuildDemoIn builds the demo system into dir (local or gs://) unless its
// moses.ini (DemoIn's config) is already there, and reports whether it
// built it.
func BuildDemoIn(ctx context.Context, dir string) (built bool, err error) {
	config, want := DemoIn(dir)
	ok, err := storage.Exists(ctx, config)
	if err != nil || ok {
		return false, err
	}
	files, err := Demo(DemoOptions{Seed: 1}).Write(ctx, storage.Join(dir, "corpus"))
	if err != nil {
		return false, err
	}
	if files.TuneSrc != want.TuneSrc || files.TuneRef != want.TuneRef ||
		files.TestSrc != want.TestSrc || files.TestRef != want.TestRef {
		return false, fmt.Errorf("build: demo: the corpus is not where it was expected: %+v", files)
	}
	// The moses.ini's paths are relative (build's default): an output
	// folder with a space in its name would otherwise split a path= value.
	res, err := Run(ctx, files.BuildOptions(dir))
	if err != nil {
		return false, err
	}
	if res.Config != config {
		return false, fmt.Errorf("build: demo: the moses.ini is %s, expected %s", res.Config, config)
	}
	return true, nil
}
