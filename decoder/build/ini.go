package build

import (
	"strconv"
	"strings"
)

// INIPaths are the paths a moses.ini names.
type INIPaths struct {
	PhraseTable, Reordering, LM string // LM "" leaves the LM out
}

// reorderingType is the lexicalized reordering model the builder makes, as
// train-model.perl names it in moses.ini (word-based extraction, msd,
// bidirectional, conditioned on both phrases, all features).
const reorderingType = "wbe-msd-bidirectional-fe-allff"

// File names inside Options.Out.
const (
	PhraseTableFile = "phrase-table.gz"
	ReorderingFile  = "reordering-table.wbe-msd-bidirectional-fe.gz"
	ConfigFile      = "moses.ini"
)

// Owns reports whether rel, a slash-separated path relative to a model
// folder, names a file build writes there (the model's files, and the
// files of the demo's corpus/): what build records as its own, and so what
// build --overwrite may remove when its bytes are still those written.
// Another file in corpus/ (the user's dev.fr) is not build's.
func Owns(rel string) bool {
	switch rel {
	case PhraseTableFile, ReorderingFile, ConfigFile:
		return true
	}
	if name, ok := strings.CutPrefix(rel, "corpus/"); ok {
		return demoFiles[name]
	}
	if n, ok := strings.CutPrefix(rel, "lm."); ok && strings.HasSuffix(n, ".arpa.gz") {
		_, err := strconv.Atoi(strings.TrimSuffix(n, ".arpa.gz"))
		return err == nil
	}
	return false
}

// demoFiles are the names of the demo corpus's files (DemoCorpus.Write).
var demoFiles = map[string]bool{"train.src": true, "train.tgt": true, "train.align": true,
	"tune.src": true, "tune.ref": true, "test.src": true, "test.ref": true}

// LMFile returns the name of the language model file of the given order.
func LMFile(order int) string { return "lm." + strconv.Itoa(order) + ".arpa.gz" }

// MosesINI returns the moses.ini of a built system, laid out as Moses'
// train-model.perl (step 9) writes it, with its default weights: the
// phrase table, lexicalized reordering table (of type
// wbe-msd-bidirectional-fe-allff) and KenLM language model of order lmOrder
// at the paths p, and a distortion limit of distLimit.
func MosesINI(p INIPaths, lmOrder, distLimit int) string {
	var b strings.Builder
	b.WriteString(`#########################
### MOSES CONFIG FILE ###
#########################

# input factors
[input-factors]
0

# mapping steps
[mapping]
0 T 0

[distortion-limit]
`)
	b.WriteString(strconv.Itoa(distLimit))
	b.WriteString(`

# feature functions
[feature]
UnknownWordPenalty
WordPenalty
PhrasePenalty
PhraseDictionaryMemory name=TranslationModel0 num-features=4 path=`)
	b.WriteString(p.PhraseTable)
	b.WriteString(" input-factor=0 output-factor=0\nLexicalReordering name=LexicalReordering0 num-features=6 type=" + reorderingType + " input-factor=0 output-factor=0 path=")
	b.WriteString(p.Reordering)
	b.WriteString("\nDistortion\n")
	if p.LM != "" {
		b.WriteString("KENLM name=LM0 factor=0 path=" + p.LM + " order=" + strconv.Itoa(lmOrder) + "\n")
	}
	b.WriteString(`
# dense weights for feature functions
[weight]
UnknownWordPenalty0= 1
WordPenalty0= -1
PhrasePenalty0= 0.2
TranslationModel0= 0.2 0.2 0.2 0.2
LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3
Distortion0= 0.3
`)
	if p.LM != "" {
		b.WriteString("LM0= 0.5\n")
	}
	return b.String()
}
