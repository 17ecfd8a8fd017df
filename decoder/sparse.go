package decoder

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mtune/mtune/feature"
)

// Templates selects the sparse feature templates of Green et al. (2013,
// §4.1) and Cherry and Foster (2012, Table 3). Each fires an indicator
// (value 1, summed over the phrases of a derivation) whose name is built
// from the phrase pair; unknown-word pass-through options fire none. The
// zero value switches every template off.
type Templates struct {
	// PhrasePair ("pt", Green's discriminative phrase table): one feature
	// per rule, named as Moses' PhrasePairFeature names it:
	// "pp_<source words joined by ','>~<target words joined by ','>".
	PhrasePair bool
	// Alignment ("al"): one feature per phrase-internal alignment point,
	// "al_<source word>~<target word>", and one per source word the
	// phrase pair leaves unaligned, "aldel_<source word>".
	Alignment bool
	// Reordering ("lo", Green's discriminative reordering): the rule
	// crossed with its orientation classes, "lo_<class>_<rule>" where the
	// rule is as in PhrasePair and the class is bm, bs or bd (monotone,
	// swap or discontinuous with respect to the previous phrase; the first
	// phrase is monotone if it starts the sentence, else discontinuous),
	// mono or nonmono (the same, monotone or not), and fm, fs or fd (with
	// respect to the next phrase, fired when the next phrase is placed).
	Reordering bool
	// TargetUnaligned ("tu", Cherry and Foster): one feature per target
	// word the phrase pair leaves unaligned, "tu_<target word>".
	TargetUnaligned bool
	// CountBins ("cb"): the joint count c(f,e) of the phrase pair (the
	// third count of the phrase table's counts field) in bins with upper
	// bounds 1, 2, 4, 8, 16, 32, 64, 128, 1000, 10000 and ∞: "cb_1" …
	// "cb_128", "cb_1k", "cb_10k", "cb_inf". Tables without joint counts
	// fire none.
	CountBins bool
	// LengthBins ("lb"): the source length, the target length and the pair,
	// "lb_s<n>", "lb_t<m>" and "lb_<n>~<m>".
	LengthBins bool
}

// templateNames are the short names ParseTemplates accepts, in order.
var templateNames = []string{"pt", "al", "lo", "tu", "cb", "lb"}

// templatePrefixes maps the name prefixes of the templates' features to
// the template that fires them.
var templatePrefixes = []struct {
	prefix string
	set    func(*Templates)
}{
	{"pp_", func(t *Templates) { t.PhrasePair = true }},
	{"al_", func(t *Templates) { t.Alignment = true }},
	{"aldel_", func(t *Templates) { t.Alignment = true }},
	{"lo_", func(t *Templates) { t.Reordering = true }},
	{"tu_", func(t *Templates) { t.TargetUnaligned = true }},
	{"cb_", func(t *Templates) { t.CountBins = true }},
	{"lb_", func(t *Templates) { t.LengthBins = true }},
}

// TemplatesFor returns the templates that fire the named sparse features,
// told by the prefix of their names (pp_, al_ and aldel_, lo_, tu_, cb_,
// lb_), and the names that belong to no template, in their order.
func TemplatesFor(names []string) (t Templates, none []string) {
	for _, n := range names {
		found := false
		for _, p := range templatePrefixes {
			if strings.HasPrefix(n, p.prefix) {
				p.set(&t)
				found = true
				break
			}
		}
		if !found {
			none = append(none, n)
		}
	}
	return t, none
}

// Or returns the templates switched on in t or in u.
func (t Templates) Or(u Templates) Templates {
	return Templates{t.PhrasePair || u.PhrasePair, t.Alignment || u.Alignment, t.Reordering || u.Reordering,
		t.TargetUnaligned || u.TargetUnaligned, t.CountBins || u.CountBins, t.LengthBins || u.LengthBins}
}

// ParseTemplates switches on the templates named in names: pt, al, lo, tu,
// cb, lb (see Templates), or "all"; each element may itself be a
// comma-separated list. Unknown names are an error.
func ParseTemplates(names ...string) (Templates, error) {
	var t Templates
	for _, list := range names {
		for n := range strings.SplitSeq(list, ",") {
			switch strings.TrimSpace(n) {
			case "":
			case "pt", "phrase-pair", "PhrasePair":
				t.PhrasePair = true
			case "al", "alignment", "Alignment":
				t.Alignment = true
			case "lo", "reordering", "Reordering":
				t.Reordering = true
			case "tu", "tgt-unal", "target-unaligned", "TargetUnaligned":
				t.TargetUnaligned = true
			case "cb", "count-bin", "CountBins":
				t.CountBins = true
			case "lb", "length-bin", "LengthBins":
				t.LengthBins = true
			case "all":
				t = Templates{true, true, true, true, true, true}
			default:
				return Templates{}, fmt.Errorf("decoder: unknown sparse template %q (want one of %s or all)", n, strings.Join(templateNames, ", "))
			}
		}
	}
	return t, nil
}

// Names returns the short names of the templates switched on.
func (t Templates) Names() []string {
	var out []string
	for i, on := range []bool{t.PhrasePair, t.Alignment, t.Reordering, t.TargetUnaligned, t.CountBins, t.LengthBins} {
		if on {
			out = append(out, templateNames[i])
		}
	}
	return out
}

func (t Templates) any() bool { return t != Templates{} }

// static reports whether a template that depends on the phrase pair alone
// is on.
func (t Templates) static() bool {
	return t.PhrasePair || t.Alignment || t.TargetUnaligned || t.CountBins || t.LengthBins
}

// Reordering classes of the lo template.
const (
	loBM = iota
	loBS
	loBD
	loMono
	loNonMono
	loFM
	loFS
	loFD
	numLO
)

var loNames = [numLO]string{"bm", "bs", "bd", "mono", "nonmono", "fm", "fs", "fd"}

// msdClass returns the lo classes of an MSD orientation: backward (with
// mono/nonmono) or forward.
func msdBack(ori int) (int, int) {
	switch ori {
	case oriM:
		return loBM, loMono
	case oriS:
		return loBS, loNonMono
	}
	return loBD, loNonMono
}

func msdFwd(ori int) int {
	switch ori {
	case oriM:
		return loFM
	case oriS:
		return loFS
	}
	return loFD
}

// msdOrient is the MSD orientation of [s, e] after [ps, pe] (pe < 0: first).
func msdOrient(ps, pe, s, e int) int {
	switch {
	case pe < 0 && s == 0, s == pe+1:
		return oriM
	case pe >= 0 && ps == e+1:
		return oriS
	}
	return oriD
}

// sparseScratch holds buffers for building feature names.
type sparseScratch struct {
	name []byte
	rule []byte
	mark []bool
}

// appendRule appends "src,words~tgt,words".
func (m *Model) appendRule(dst []byte, src []string, tgt []int32) []byte {
	for i, w := range src {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, w...)
	}
	dst = append(dst, '~')
	tv := m.pt.TargetVocab()
	for i, t := range tgt {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, tv.Word(t)...)
	}
	return dst
}

var countBins = [...]struct {
	max  float32
	name string
}{{1, "1"}, {2, "2"}, {4, "4"}, {8, "8"}, {16, "16"}, {32, "32"}, {64, "64"}, {128, "128"}, {1000, "1k"}, {10000, "10k"}}

// eachStatic calls f with the name of every static sparse feature (all
// templates but lo) that phrase-table option o fires for source words src.
// The name is only valid during the call.
func (m *Model) eachStatic(sb *sparseScratch, src []string, o int32, f func(name []byte)) {
	t := m.tmpl
	tgt := m.pt.Target(o)
	tv := m.pt.TargetVocab()
	if t.PhrasePair {
		sb.name = append(sb.name[:0], "pp_"...)
		sb.name = m.appendRule(sb.name, src, tgt)
		f(sb.name)
	}
	if t.Alignment || t.TargetUnaligned {
		al := m.pt.Alignment(o)
		if al.Len() > 0 {
			n := len(src) + len(tgt)
			if cap(sb.mark) < n {
				sb.mark = make([]bool, n)
			}
			mark := sb.mark[:n]
			clear(mark)
			for k := 0; k < al.Len(); k++ {
				i, j := al.At(k)
				if i >= len(src) || j >= len(tgt) {
					continue
				}
				mark[i], mark[len(src)+j] = true, true
				if t.Alignment {
					sb.name = append(sb.name[:0], "al_"...)
					sb.name = append(sb.name, src[i]...)
					sb.name = append(sb.name, '~')
					sb.name = append(sb.name, tv.Word(tgt[j])...)
					f(sb.name)
				}
			}
			if t.Alignment {
				for i, w := range src {
					if !mark[i] {
						sb.name = append(append(sb.name[:0], "aldel_"...), w...)
						f(sb.name)
					}
				}
			}
			if t.TargetUnaligned {
				for j, id := range tgt {
					if !mark[len(src)+j] {
						sb.name = append(append(sb.name[:0], "tu_"...), tv.Word(id)...)
						f(sb.name)
					}
				}
			}
		}
	}
	if t.CountBins {
		if c := m.pt.Counts(o); len(c) >= 3 {
			name := "inf"
			for _, b := range countBins {
				if c[2] <= b.max {
					name = b.name
					break
				}
			}
			sb.name = append(append(sb.name[:0], "cb_"...), name...)
			f(sb.name)
		}
	}
	if t.LengthBins {
		sb.name = strconv.AppendInt(append(sb.name[:0], "lb_s"...), int64(len(src)), 10)
		f(sb.name)
		sb.name = strconv.AppendInt(append(sb.name[:0], "lb_t"...), int64(len(tgt)), 10)
		f(sb.name)
		sb.name = strconv.AppendInt(append(sb.name[:0], "lb_"...), int64(len(src)), 10)
		sb.name = strconv.AppendInt(append(sb.name, '~'), int64(len(tgt)), 10)
		f(sb.name)
	}
}

// staticSparseWeight returns the summed weight of the static sparse
// features option o fires, looking the names up without interning them.
func (m *Model) staticSparseWeight(sb *sparseScratch, src []string, o int32, w feature.Weights) float64 {
	var s float64
	m.eachStatic(sb, src, o, func(name []byte) {
		if id, ok := m.index.Lookup(string(name)); ok {
			s += w.At(id)
		}
	})
	return s
}

// loName builds the name of lo class c of option o.
func (m *Model) loName(sb *sparseScratch, src []string, o int32, c int) []byte {
	sb.name = append(sb.name[:0], "lo_"...)
	sb.name = append(sb.name, loNames[c]...)
	sb.name = append(sb.name, '_')
	return m.appendRule(sb.name, src, m.pt.Target(o))
}
