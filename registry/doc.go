// Package registry keeps the tuning runs of nightly retraining
// (DESIGN.md §9): a folder or gs:// prefix R holding
//
//	R/promoted.json   the weights in use: {"run","weights","metric","dev_score","since"}
//	R/history.jsonl   one line per night (and per rollback)
//	R/lease           who is writing the registry now
//	R/runs/ID/        one run folder (DESIGN.md §6) per night, with the
//	                  night's start.json (the weights it starts from) and
//	                  gate.json (its gate's decision)
//	R/report.html     promoted dev scores night after night, candidates, decisions
//
// A night (Night.Run) takes the lease, warm-starts from the promoted
// weights, tunes into R/runs/ID, compares the candidate with the promoted
// weights on the dev set (Gate: the gain under the gate's metric, BLEU by
// default, and paired bootstrap resampling), promotes by replacing
// promoted.json atomically and appends to the history. Every score the
// files hold names its metric; a BLEU night's files keep the field names
// of earlier versions (format.go). Every write is atomic and conditional on the version read
// (storage.WriteIfVersion), so a killed, repeated or concurrent night
// leaves promoted.json either the old pointer or the new one; the history
// line a call killed after promoting did not write is appended by the next
// call under the lease, from the run's gate.json (completeHistory). The files
// name weights inside R relative to R, so a registry copied or moved
// elsewhere keeps working; Repair mends files that do not parse.
// WriteStatus, WriteHistory and WriteRepaired give the registry's records
// as text (`mtune registry`); Open names a registry, DefaultRunID a night.
//
// The package knows nothing of Beam: the night's tuning and decoding are
// functions its caller (cmd/mtune) binds to the pipeline.
package registry
