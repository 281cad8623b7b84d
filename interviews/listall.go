package interviews

import (
	"context"
	"fmt"
)

// ListAll reads every interview matching opts from store, page by page
// (opts.Offset and opts.Limit are its own), in the store's order.
func ListAll(ctx context.Context, store Store, opts ListOptions) ([]Summary, error) {
	var out []Summary
	opts.Limit = MaxListLimit
	for opts.Offset = 0; ; {
		page, err := store.List(ctx, opts)
		if err != nil {
			return out, fmt.Errorf("interviews: listing: %w", err)
		}
		out = append(out, page.Items...)
		opts.Offset += len(page.Items)
		if len(page.Items) == 0 || opts.Offset >= page.Total {
			return out, nil
		}
	}
}
