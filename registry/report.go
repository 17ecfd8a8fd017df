package registry

import "context"

// WriteReport redraws R/report.html. TEMPORARY: replaced by the report
// helper before this lands.
func WriteReport(ctx context.Context, r Registry) error { return nil }
