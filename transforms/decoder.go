package transforms

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/mtune/mtune/tune"
)

// OpenDecoder returns the decoder registered as name (tune.RegisterDecoder:
// the real ones register themselves in tune, tests' fakes in their own
// packages) loaded from config, once per worker process (tune.OpenDecoder),
// logging what it loaded to the worker's Beam log. DoFns hold the name and
// the configuration string, and call it in Setup.
func OpenDecoder(ctx context.Context, name, config string) (tune.Decoder, error) {
	return tune.OpenDecoder(ctx, name, config, log.Infof)
}
