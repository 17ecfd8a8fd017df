package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mtune/mtune/io/storage"
)

// The files an epoch's pipeline writes into its EpochLayout for the driver:
// each shard's result (state/shard-NNN.json) and stale mode's staleness
// reports (work/stale-NNNNN.json).

// WriteShardResult writes r as JSON, atomically, to its file in the folder
// dir, ShardStateName(r.Shard) (dir is an EpochLayout's State(), so the
// file is its ShardState(r.Shard)), and returns the file's path.
func WriteShardResult(ctx context.Context, dir string, r ShardResult) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("tune: encoding shard %d's result: %w", r.Shard, err)
	}
	path := storage.Join(dir, ShardStateName(r.Shard))
	if err := storage.WriteFile(ctx, path, append(data, '\n')); err != nil {
		return "", fmt.Errorf("tune: %w", err)
	}
	return path, nil
}

// ReadShardResult reads the shard result file at path (WriteShardResult).
func ReadShardResult(ctx context.Context, path string) (ShardResult, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return ShardResult{}, fmt.Errorf("tune: %w", err)
	}
	r, err := DecodeShardResult(data)
	if err != nil {
		return ShardResult{}, fmt.Errorf("%w (%s)", err, path)
	}
	return r, nil
}

// ErrShardResult is wrapped by the errors of DecodeShardResult.
var ErrShardResult = errors.New("tune: malformed shard result")

// DecodeShardResult decodes the JSON of a shard result and checks it: a
// negative shard, epoch or count, invalid weights or statistics, unknown
// fields, trailing data or truncated input are errors (wrapping
// ErrShardResult).
func DecodeShardResult(data []byte) (ShardResult, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r ShardResult
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return ShardResult{}, fmt.Errorf("%w: %w", ErrShardResult, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return ShardResult{}, fmt.Errorf("%w: data after the result", ErrShardResult)
	}
	if err := r.Validate(); err != nil {
		return ShardResult{}, fmt.Errorf("%w: %w", ErrShardResult, err)
	}
	return r, nil
}

// WriteStaleReport writes r as JSON, atomically, to its file in the folder
// dir, StaleReportName(r.Shard) (dir is an EpochLayout's Work(), so the
// file is its StaleReport(r.Shard)), and returns the file's path.
func WriteStaleReport(ctx context.Context, dir string, r StaleReport) (string, error) {
	path := storage.Join(dir, StaleReportName(r.Shard))
	return path, WriteJSON(ctx, path, r)
}

// ReadStaleReport reads the staleness report at path (WriteStaleReport).
func ReadStaleReport(ctx context.Context, path string) (StaleReport, error) {
	var r StaleReport
	if err := ReadJSON(ctx, path, &r); err != nil {
		return StaleReport{}, err
	}
	return r, nil
}
