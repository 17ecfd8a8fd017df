package batch

import (
	"errors"
	"fmt"

	"github.com/mtune/mtune/learner/internal/statecodec"
)

// ErrState is wrapped by the errors UnmarshalBinary returns for data that is
// not a learner state of the expected kind and version.
var ErrState = errors.New("batch: invalid learner state")

// errUninit is returned by the methods of a zero learner that was not
// restored with UnmarshalBinary.
var errUninit = errors.New("batch: learner not made by its New function nor restored by UnmarshalBinary")

// restoredOptions finishes d, whose state held o, and returns o with its
// defaults filled in; either failing is an error wrapping ErrState.
func restoredOptions[O interface{ withDefaults() (O, error) }](d *statecodec.Decoder, o O) (O, error) {
	err := d.Finish()
	if err == nil {
		o, err = o.withDefaults()
	}
	if err != nil {
		return o, fmt.Errorf("%w: %w", ErrState, err)
	}
	return o, nil
}
