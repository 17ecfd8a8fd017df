package decoder

import "github.com/mtune/mtune/feature"

// sparseIDs holds the ids of the sparse features the options of the
// sentence being decoded fire, each looked up (interned) in the model's
// index the first time a hypothesis uses it. The hypotheses of an n-best
// list share most of their phrases: building each feature's name and
// looking it up for every hypothesis cost a tenth of a 100-best decoding.
//
// A name is interned at the first use in the sentence, where it was
// interned when every use built it, so the index hands out the same ids
// in the same order.
type sparseIDs struct {
	// static[o] is the span of option o's static features (eachStatic)
	// in ids; end < 0 until it is first used.
	static []idSpan
	ids    []feature.ID
	// lo[o*numLO+c] is the id of option o's lo class c; -1 until used.
	lo []feature.ID
}

type idSpan struct{ start, end int32 }

// reset forgets the ids of the previous sentence's options and makes room
// for n options.
func (c *sparseIDs) reset(n int, lo bool) {
	c.static = resize(c.static, n)
	for i := range c.static {
		c.static[i].end = -1
	}
	c.ids = c.ids[:0]
	c.lo = c.lo[:0]
	if lo {
		c.lo = resize(c.lo, n*numLO)
		for i := range c.lo {
			c.lo[i] = -1
		}
	}
}

// staticIDs returns the ids of the static sparse features of option o
// (an index in x.st.opts, a phrase-table option), in eachStatic's order.
func (x *searcher) staticIDs(o int32) []feature.ID {
	c := &x.ids
	sp := &c.static[o]
	if sp.end < 0 {
		opt := &x.st.opts[o]
		start := len(c.ids)
		x.m.eachStatic(&x.sb, x.st.words[opt.s:opt.e+1], opt.opt, func(name []byte) {
			c.ids = append(c.ids, x.m.index.ID(string(name)))
		})
		*sp = idSpan{int32(start), int32(len(c.ids))}
	}
	return c.ids[sp.start:sp.end]
}

// loID returns the id of lo class class of option o (an index in
// x.st.opts, a phrase-table option).
func (x *searcher) loID(o int32, class int) feature.ID {
	k := int(o)*numLO + class
	if id := x.ids.lo[k]; id >= 0 {
		return id
	}
	opt := &x.st.opts[o]
	id := x.m.index.ID(string(x.m.loName(&x.sb, x.st.words[opt.s:opt.e+1], opt.opt, class)))
	x.ids.lo[k] = id
	return id
}
