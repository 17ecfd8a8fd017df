package rundir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mtune/mtune/io/storage"
)

// WriteJSON writes v to path as one line of JSON, atomically.
func WriteJSON(ctx context.Context, path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("rundir: encoding %s: %w", path, err)
	}
	if err := storage.WriteFile(ctx, path, append(data, '\n')); err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	return nil
}

// ReadJSON reads a file WriteJSON wrote into v.
func ReadJSON(ctx context.Context, path string, v any) error {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("rundir: %s: %w", path, err)
	}
	return nil
}

// UnmarshalStrict decodes the one JSON value data holds into v, refusing
// what json.Unmarshal lets pass silently: fields v does not have, and
// text after the value. Truncated input is io.ErrUnexpectedEOF.
func UnmarshalStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the JSON value")
	}
	return nil
}
