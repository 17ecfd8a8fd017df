package decoder

import "errors"

var (
	// ErrUnsupported marks a moses.ini this decoder cannot run: a feature
	// type it does not implement, or more than one instance of a feature
	// it supports once only.
	ErrUnsupported = errors.New("unsupported")
	// ErrConfig marks an inconsistent configuration: weights for features
	// the model lacks, a reordering table with too few scores, a missing
	// phrase table.
	ErrConfig = errors.New("bad configuration")
	// ErrInput marks a sentence that cannot be decoded: invalid UTF-8 or
	// longer than MaxSentenceLength words.
	ErrInput = errors.New("bad input")
	// ErrNoTranslation is returned when the search ends with an empty last
	// stack, which the distortion-limit checks are meant to prevent.
	ErrNoTranslation = errors.New("no complete translation")
)
