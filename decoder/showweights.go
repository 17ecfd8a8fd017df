package decoder

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
)

// ShowWeights prints the features of the moses.ini at ini, in its order,
// with the weights opts gives them, as Moses' -show-weights does: "Name= v
// …" for a tuneable feature, "Name UNTUNEABLE" for another; then the
// non-zero sparse weights, "name= v".
func ShowWeights(ctx context.Context, w io.Writer, ini string, opts LoadOptions) error {
	idx := feature.NewIndex()
	cfg, err := model.LoadConfig(ctx, ini, model.ConfigOptions{Index: idx})
	if err != nil {
		return err
	}
	set := cfg.Weights.Clone()
	for _, f := range []struct {
		path   string
		format weights.Format
	}{{opts.WeightsFile, weights.Auto}, {cfg.WeightFile, weights.Sparse}, {opts.SparseWeightsFile, weights.Sparse}} {
		if f.path == "" {
			continue
		}
		o, err := weights.ReadFormat(ctx, f.path, f.format, idx)
		if err != nil {
			return err
		}
		if err := set.Merge(o); err != nil {
			return err
		}
	}
	out := bufio.NewWriter(w)
	for _, f := range cfg.Features {
		if !f.Tuneable() {
			fmt.Fprintf(out, "%s UNTUNEABLE\n", f.Name)
			continue
		}
		fmt.Fprintf(out, "%s=", f.Name)
		for j := range f.NumFeatures {
			fmt.Fprintf(out, " %s", strconv.FormatFloat(set.Value(feature.DenseName(f.Name, j)), 'g', -1, 64))
		}
		fmt.Fprintln(out)
	}
	for _, e := range set.Sparse() {
		fmt.Fprintf(out, "%s= %s\n", e.Name, strconv.FormatFloat(e.Value, 'g', -1, 64))
	}
	return out.Flush()
}
