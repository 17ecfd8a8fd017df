// Package corpus reads tuning sets: a source file and one or more reference
// translations, one sentence a line.
//
// A file holds one sentence a line, UTF-8:
//
//	reprise de la session
//	je déclare reprise la session du parlement européen
//
// is two sentences. The newline may be "\r\n" (the '\r' is dropped), the last
// line needs no newline, and a UTF-8 byte order mark at the start of a file
// is dropped. Lines are otherwise kept as they are (no trimming, no
// tokenisation). Invalid UTF-8 is an error naming the file, line and column.
// An empty file has no lines; Load and LoadRefs reject an empty tuning set.
// Empty lines are sentences like any other, as in Moses (an empty source
// line decodes to an empty translation); Corpus.EmptySource lists them.
//
// # References
//
// Each reference argument of Load and LoadRefs may be
//
//   - a file: one reference translation of every sentence;
//   - a folder: every regular file directly in it, sorted by name, skipping
//     names that start with '.';
//   - a prefix, as in Moses' mert-moses.pl and multi-bleu.perl: when ref
//     itself does not exist, the files ref0, ref1, … up to the first
//     missing number, or if there is no ref0, ref.0, ref.1, … (so both "re.txt."
//     and "re.txt" name cdec's re.txt.0 … re.txt.3).
//
// A file named twice is an error, as is a reference with a line count
// other than the source's (the message names both files and both counts).
//
// Paths are local or gs://, and .gz/.zst files are decompressed, through
// package storage.
package corpus
