// Package decodertest provides a fake tune.Decoder for tests of the
// transforms and pipelines: Pool "decodes" a sentence by re-ranking the
// n-best list of that sentence from a fixed pool, such as the europarl100
// lists, with the weights it is given.
//
// Importing the package registers the factory "nbest-pool", whose
// configuration string is the path of a Moses n-best file (local or gs://,
// .gz/.zst): the DoFns' Decoder "nbest-pool" and DecoderConfig
// "/path/nbest.gz" plug it in.
package decodertest
