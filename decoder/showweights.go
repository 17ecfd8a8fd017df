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
// with the weights opts gives them (WeightsFile, WeightOverwrite, the
// ini's [weight-file], SparseWeightsFile, each over those before), as
// Moses' -show-weights does: "Name= v …" for a tuneable feature, "Name
// UNTUNEABLE" for another; then the non-zero sparse weights, "name= v".
func ShowWeights(ctx context.Context, w io.Writer, ini string, opts LoadOptions) error {
	idx := feature.NewIndex()
	cfg, err := model.LoadConfig(ctx, ini, model.ConfigOptions{Index: idx})
	if err != nil {
		return err
	}
	set := cfg.Weights.Clone()
	merge := func(o *weights.Set, err error) error {
		if err == nil {
			err = set.Merge(o)
		}
		return err
	}
	if opts.WeightsFile != "" {
		if err := merge(weights.ReadFormat(ctx, opts.WeightsFile, weights.Auto, idx)); err != nil {
			return err
		}
	}
	if opts.WeightOverwrite != "" {
		if err := merge(parseOverwrite(opts.WeightOverwrite, idx)); err != nil {
			return err
		}
	}
	for _, path := range []string{cfg.WeightFile, opts.SparseWeightsFile} {
		if path == "" {
			continue
		}
		if err := merge(weights.ReadFormat(ctx, path, weights.Sparse, idx)); err != nil {
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
