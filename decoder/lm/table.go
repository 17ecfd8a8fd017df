package lm

import (
	"math"
	"math/bits"

	"github.com/mtune/mtune/internal/wordhash"
)

// An n-gram w1 … wn (n ≥ 2) is stored in the table of order n under the
// exact key (ctx, wn), where ctx is the slot of its context w1 … wn-1 in
// the table of order n-1 (for n = 2, the word id of w1). Keys are never
// hashed to something shorter than themselves, so two n-grams can never be
// confused. Tables use open addressing with linear probing at a load of at
// most 2/3 (KenLM's probing multiplier 1.5); a slot is empty when its word
// field is 0, words being stored as id+1.

// entry is a slot of a table: the key (ctx, word), the n-gram's log10
// probability and its back-off. B is float32 in the tables below the
// model's order and struct{}, which takes no room, in the table of the
// model's order, whose n-grams have no back-off. The back-off comes first:
// a zero-size last field would be padded.
type entry[B float32 | struct{}] struct {
	backoff B // -0 (negZero): no back-off and nobody's context
	ctx     int32
	word    int32 // id+1; 0 = empty
	prob    float32
}

// midEntry is a slot of a table below the model's order.
type midEntry = entry[float32]

// topEntry is a slot of the table of the model's order: no back-off.
type topEntry = entry[struct{}]

var negZero = float32(math.Copysign(0, -1))

const negZeroBits = 0x80000000

// extends reports whether an n-gram with back-off b must stay in a state:
// its back-off is non-zero or it is the context of a longer n-gram.
func extends(b float32) bool { return math.Float32bits(b) != negZeroBits }

// home returns the first slot to probe for a key in a table of n slots.
func home(ctx, word int32, n int) int {
	hi, _ := bits.Mul64(wordhash.Pair(ctx, word), uint64(n))
	return int(hi)
}

// capacityFor returns the slots for n entries.
func capacityFor(n int) int { return n + n/2 + 1 }

// table is the table of the n-grams of one order.
type table[B float32 | struct{}] struct {
	e []entry[B]
	n int // entries
}

// midTable is a table below the model's order, topTable the table of the
// model's order.
type (
	midTable = table[float32]
	topTable = table[struct{}]
)

// find returns the slot of (ctx, w) or -1.
func (t *table[B]) find(ctx int32, w WordID) int32 {
	word := int32(w) + 1
	e := t.e
	if len(e) == 0 {
		return -1
	}
	for i := home(ctx, word, len(e)); ; {
		s := &e[i]
		if s.word == word && s.ctx == ctx {
			return int32(i)
		}
		if s.word == 0 {
			return -1
		}
		if i++; i == len(e) {
			i = 0
		}
	}
}

// insert returns the slot for (ctx, w) and whether it is new. The table
// must have room.
func (t *table[B]) insert(ctx int32, w WordID) (int32, bool) {
	word := int32(w) + 1
	e := t.e
	for i := home(ctx, word, len(e)); ; {
		s := &e[i]
		if s.word == 0 {
			s.ctx, s.word = ctx, word
			t.n++
			return int32(i), true
		}
		if s.word == word && s.ctx == ctx {
			return int32(i), false
		}
		if i++; i == len(e) {
			i = 0
		}
	}
}

// resize rehashes into slots for n entries.
func (t *table[B]) resize(n int) {
	old := t.e
	t.e = make([]entry[B], capacityFor(n))
	t.n = 0
	for i := range old {
		if s := &old[i]; s.word != 0 {
			j, _ := t.insert(s.ctx, WordID(s.word-1))
			t.e[j].prob, t.e[j].backoff = s.prob, s.backoff
		}
	}
}
