//go:build !unix

package decoder

func maxRSS() int64 { return 0 }
