package weights

import (
	"errors"
	"strings"

	"github.com/mtune/mtune/feature"
)

// ErrNotDense marks a -weight-overwrite string that holds no dense weight
// or a sparse one.
var ErrNotDense = errors.New("want dense weights 'Name= v …' only (sparse weights go in -weight-file)")

// ParseOverwrite parses spec, the value of Moses' -weight-overwrite: dense
// weights in Moses' format, several labels on one line,
//
//	LM0= 0.5 TranslationModel0= 0.2 0.2 0.2 0.2
//
// which parses to the groups LM0 (1) and TranslationModel0 (4), interning
// their names in idx (a new Index if nil). A spec that is not Moses dense
// weights is ReadMoses' error (ErrEmpty for one that holds none); one
// with no group, or a sparse weight, ErrNotDense.
func ParseOverwrite(spec string, idx *feature.Index) (*Set, error) {
	s, err := ReadMoses(strings.NewReader(spec), idx)
	if err != nil {
		return nil, err
	}
	if len(s.Groups) == 0 || len(s.Sparse()) > 0 {
		return nil, ErrNotDense
	}
	return s, nil
}
