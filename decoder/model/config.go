package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
)

// Moses' defaults for the search settings of a moses.ini.
const (
	DefaultStackSize       = 200  // [stack]
	DefaultBeamThreshold   = 1e-5 // [beam-threshold]
	DefaultMaxPhraseLength = 20   // [max-phrase-length]
	DefaultDistortionLimit = -1   // [distortion-limit]: unlimited
	DefaultTableLimit      = 20   // table-limit= of a phrase table

	DefaultCubePruningPopLimit  = 1000 // [cube-pruning-pop-limit]
	DefaultCubePruningDiversity = 0    // [cube-pruning-diversity]
)

// Values of [search-algorithm] (Moses' SearchAlgorithm) that this package
// reads; Moses' default is SearchNormal.
const (
	SearchNormal      = 0 // multi-stack beam search (SearchNormal)
	SearchCubePruning = 1 // cube pruning (SearchCubePruning)
)

// mosesAlgorithms names the other values of Moses' SearchAlgorithm, for
// errors.
var mosesAlgorithms = map[int]string{
	2: "cube growing, no longer in Moses", 3: "CYK+ chart decoding", 4: "normal batch search",
	5: "incremental chart decoding", 6: "string-to-tree syntax decoding", 7: "tree-to-string syntax decoding",
	8: "tree-to-string SCFG decoding", 9: "forest-to-string decoding", 10: "Moses2's cube pruning per mini-stack",
	11: "Moses2's cube pruning per bitmap", 12: "Moses2's cube pruning by cardinality",
	13: "Moses2's cube pruning bitmap stacks", 14: "Moses2's cube pruning mini-stacks",
}

// Feature types this package reads (the decoder implements them).
const (
	TypeKENLM                  = "KENLM"
	TypeDistortion             = "Distortion"
	TypeLexicalReordering      = "LexicalReordering"
	TypeWordPenalty            = "WordPenalty"
	TypeUnknownWordPenalty     = "UnknownWordPenalty"
	TypePhrasePenalty          = "PhrasePenalty"
	TypePhraseDictionaryMemory = "PhraseDictionaryMemory"
)

// Config is a Moses configuration file, moses.ini: its feature functions,
// their weights and the search settings mtune's decoder uses.
type Config struct {
	// File is the path the configuration was read from; empty for one
	// built in code.
	File string
	// Sections holds every section of the file in order, as read, with
	// comments and blank lines removed. WriteConfig does not use it.
	Sections []Section
	// Features are the [feature] lines in order.
	Features []Feature
	// Weights holds the [weight] section: a group per feature, named by
	// the feature's Name, with NumFeatures values. ReadConfig adds the
	// groups Moses adds for features the section leaves out (1 for each
	// component) after the ones the section has.
	Weights *weights.Set
	// WeightFile is the path of Moses' sparse weights file
	// ([weight-file]), resolved as Feature paths are; empty for none.
	WeightFile string

	// DistortionLimit is [distortion-limit]: the largest jump in source
	// words; 0 means monotone decoding, a negative value no limit (Moses'
	// default when the section is absent).
	DistortionLimit int
	// EarlyDistortionCost is [early-distortion-cost]: Moses adds the
	// distortion cost of the gaps a hypothesis leaves as soon as it leaves
	// them (Moses' default: false).
	EarlyDistortionCost bool
	// MaxPhraseLength is [max-phrase-length], the longest source phrase
	// looked up (Moses' default 20).
	MaxPhraseLength int
	// StackSize is [stack], the histogram pruning limit (Moses' default
	// 200).
	StackSize int
	// BeamThreshold is [beam-threshold]: hypotheses worse than the best
	// of their stack times this are pruned; 0 disables beam pruning
	// (Moses' default 1e-5).
	BeamThreshold float64
	// SearchAlgorithm is [search-algorithm]: SearchNormal (Moses' default)
	// or SearchCubePruning; ReadConfig refuses Moses' other algorithms.
	SearchAlgorithm int
	// CubePruningPopLimit is [cube-pruning-pop-limit], the number of
	// hypotheses cube pruning pops per stack (Moses' default 1000).
	CubePruningPopLimit int
	// CubePruningDiversity is [cube-pruning-diversity], the number of
	// hypotheses cube pruning pops at least for each coverage of a stack
	// after the pop limit (Moses' default 0).
	CubePruningDiversity int

	// NBestFile and NBestSize are [n-best-list] ("file", "size" and an
	// optional "distinct" line, which sets NBestDistinct); empty and 0 when
	// the section is absent. The file is kept as written.
	NBestFile     string
	NBestSize     int
	NBestDistinct bool
	// IncludeSegmentation is [include-segmentation-in-n-best].
	IncludeSegmentation bool
	// IncludeAlignment is [print-alignment-info-in-n-best].
	IncludeAlignment bool
}

// Section is one section of a moses.ini.
type Section struct {
	Name string
	// Lines are the section's values, comments removed and trimmed.
	Lines []string
	// Line is the line number of the header.
	Line int
}

// NewConfig returns a configuration with no features and Moses' default
// search settings, ready to be filled in and written by WriteConfig.
func NewConfig() *Config {
	return &Config{
		Weights:         weights.NewSet(nil),
		DistortionLimit: DefaultDistortionLimit,
		MaxPhraseLength: DefaultMaxPhraseLength,
		StackSize:       DefaultStackSize,
		BeamThreshold:   DefaultBeamThreshold,

		SearchAlgorithm:      SearchNormal,
		CubePruningPopLimit:  DefaultCubePruningPopLimit,
		CubePruningDiversity: DefaultCubePruningDiversity,
	}
}

// Feature is one [feature] line: "Type key=value …".
type Feature struct {
	// Type is the feature function, such as KENLM.
	Type string
	// Name is the instance name: the name= argument, or else Type followed
	// by the number of earlier features of that type without a name=, as
	// Moses numbers them (KENLM0, KENLM1, …).
	Name string
	// NumFeatures is the number of dense scores: num-features=, or else
	// the type's default (1; a LexicalReordering's from its type=).
	NumFeatures int
	// Args are the other key=value arguments in line order. ReadConfig
	// substitutes ${NAME} in values from the environment and makes path=
	// absolute (see the package documentation); WriteConfig writes them as
	// they are.
	Args []Arg
	// Line is the line of the file it was read from, 0 if built in code.
	Line int
}

// Arg is a key=value argument of a feature line.
type Arg struct {
	Key, Value string
}

// Arg returns the value of argument key.
func (f *Feature) Arg(key string) (string, bool) {
	for _, a := range f.Args {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// Path returns the path= argument ("" if none).
func (f *Feature) Path() string {
	p, _ := f.Arg("path")
	return p
}

// Tuneable returns the tuneable= argument; true when absent. Moses still
// weighs a feature that is not tuneable but leaves it out of n-best lists.
func (f *Feature) Tuneable() bool {
	v, ok := f.Arg("tuneable")
	if !ok {
		return true
	}
	b, _ := parseBool(v)
	return b
}

// TableLimit returns a phrase table's table-limit=, DefaultTableLimit when
// absent; 0 means no limit.
func (f *Feature) TableLimit() int {
	v, ok := f.Arg("table-limit")
	if !ok {
		return DefaultTableLimit
	}
	n, _ := strconv.Atoi(v)
	return n
}

// Order returns a language model's order= argument, 0 when absent.
func (f *Feature) Order() int {
	n, _ := strconv.Atoi(f.argOr("order", "0"))
	return n
}

// ReorderingType parses a LexicalReordering's type= argument.
func (f *Feature) ReorderingType() (ReorderingType, error) {
	v, ok := f.Arg("type")
	if !ok {
		return ReorderingType{}, fmt.Errorf("%w: %s has no type=", ErrConfig, f.Name)
	}
	return ParseReorderingType(v)
}

// DefaultScores parses a LexicalReordering's default-scores= argument,
// comma-separated probabilities that Moses uses for a phrase pair the
// table lacks; nil when absent.
func (f *Feature) DefaultScores() ([]float32, error) {
	v, ok := f.Arg("default-scores")
	if !ok {
		return nil, nil
	}
	var out []float32
	for p := range strings.SplitSeq(v, ",") {
		x, ok := parseProb([]byte(p))
		if !ok {
			return nil, fmt.Errorf("%w: default-scores value %s", ErrNumber, textpos.Quote(p))
		}
		out = append(out, x)
	}
	return out, nil
}

func (f *Feature) argOr(key, def string) string {
	if v, ok := f.Arg(key); ok {
		return v
	}
	return def
}

// Feature returns the feature named name.
func (c *Config) Feature(name string) (*Feature, bool) {
	for i := range c.Features {
		if c.Features[i].Name == name {
			return &c.Features[i], true
		}
	}
	return nil, false
}

// FeaturesOfType returns the features of type typ in order.
func (c *Config) FeaturesOfType(typ string) []*Feature {
	var out []*Feature
	for i := range c.Features {
		if c.Features[i].Type == typ {
			out = append(out, &c.Features[i])
		}
	}
	return out
}

// Groups returns the dense layout of the features in [feature] order, the
// order Moses writes them in n-best lists.
func (c *Config) Groups() []feature.Group {
	out := make([]feature.Group, len(c.Features))
	for i, f := range c.Features {
		out[i] = feature.Group{Label: f.Name, Len: f.NumFeatures}
	}
	return out
}

// FeatureWeights returns the weights of the named feature's components.
func (c *Config) FeatureWeights(name string) []float64 {
	f, ok := c.Feature(name)
	if !ok || c.Weights == nil {
		return nil
	}
	out := make([]float64, f.NumFeatures)
	for i := range out {
		out[i] = c.Weights.Value(feature.DenseName(name, i))
	}
	return out
}

// ConfigOptions configures ReadConfig and LoadConfig.
type ConfigOptions struct {
	// Getenv looks up the variables of ${NAME} in feature arguments, the
	// weight file and the n-best file; nil means os.LookupEnv.
	Getenv func(name string) (string, bool)
	// Dir is the folder relative paths written literally are resolved
	// against; empty means the folder of the file (the working directory
	// when the file name is empty). A relative path that starts with
	// ${NAME} is resolved against the working directory, as in Moses.
	Dir string
	// Index interns the weights' feature names; nil means a new one.
	Index *feature.Index
	// Logger receives the warning Moses also prints for a feature without
	// weights; nil means slog.Default().
	Logger *slog.Logger
}

// LoadConfig reads the moses.ini at path (local or gs://).
func LoadConfig(ctx context.Context, path string, opts ConfigOptions) (*Config, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return ReadConfig(bytes.NewReader(data), path, opts)
}

// maxNumFeatures bounds num-features=: Moses' dense features have a few
// components each.
const maxNumFeatures = 1000

// knownSections are the moses.ini sections ReadConfig understands.
var knownSections = map[string]bool{
	"input-factors": true, "mapping": true, "feature": true, "weight": true, "weight-file": true,
	"distortion-limit": true, "early-distortion-cost": true, "max-phrase-length": true,
	"stack": true, "beam-threshold": true, "n-best-list": true,
	"search-algorithm": true, "cube-pruning-pop-limit": true, "cube-pruning-diversity": true,
	"include-segmentation-in-n-best": true, "print-alignment-info-in-n-best": true,
}

// ReadConfig reads a moses.ini from r; name is its path, for errors and
// for resolving relative paths (see ConfigOptions.Dir).
func ReadConfig(r io.Reader, name string, opts ConfigOptions) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("model: reading %s: %w", name, err)
	}
	p := configParser{name: name, opts: opts}
	if p.opts.Getenv == nil {
		p.opts.Getenv = os.LookupEnv
	}
	if p.dir, err = configDir(name, opts.Dir); err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return p.parse(data)
}

func configDir(name, dir string) (string, error) {
	if dir == "" {
		if storage.IsGCS(name) {
			i := strings.LastIndexByte(name, '/')
			if i >= len("gs://") {
				return name[:i], nil
			}
			return name, nil
		}
		dir = filepath.Dir(name)
	}
	if storage.IsGCS(dir) {
		return dir, nil
	}
	return filepath.Abs(dir)
}

type configParser struct {
	name string
	opts ConfigOptions
	dir  string
}

func (p *configParser) errAt(line, col int, kind error, format string, args ...any) *ParseError {
	return errAt(p.name, line, col, kind, format, args...)
}

// secLine is a value line of a section with its line number.
type secLine struct {
	text string
	line int
}

func (p *configParser) parse(data []byte) (*Config, error) {
	c := NewConfig()
	c.File = p.name
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	byName := map[string][]secLine{}
	headers := map[string]int{}
	cur := -1
	num := 0
	for len(data) > 0 {
		num++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if !utf8.Valid(line) {
			return nil, p.errAt(num, 0, ErrUTF8, "")
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		t := trimBlank(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '[' {
			j := bytes.IndexByte(t, ']')
			if j < 0 || len(trimBlank(t[j+1:])) > 0 {
				return nil, p.errAt(num, 1, ErrSyntax, "malformed section header (want [name])")
			}
			sec := string(trimBlank(t[1:j]))
			if sec == "" {
				return nil, p.errAt(num, 1, ErrSyntax, "empty section name")
			}
			c.Sections = append(c.Sections, Section{Name: sec, Line: num})
			cur = len(c.Sections) - 1
			if _, ok := headers[sec]; !ok {
				headers[sec] = num
			}
			continue
		}
		if cur < 0 {
			return nil, p.errAt(num, 1, ErrSyntax, "value before any [section] (want a moses.ini)")
		}
		s := &c.Sections[cur]
		s.Lines = append(s.Lines, string(t))
		byName[s.Name] = append(byName[s.Name], secLine{string(t), num})
	}
	// Unknown sections, all at once.
	var unknown []string
	listed := map[string]bool{}
	first := 0
	for _, s := range c.Sections {
		if !knownSections[s.Name] && !listed[s.Name] {
			listed[s.Name] = true
			unknown = append(unknown, fmt.Sprintf("[%s] (line %d)", s.Name, s.Line))
			if first == 0 {
				first = s.Line
			}
		}
	}
	if len(unknown) > 0 {
		return nil, p.errAt(first, 0, ErrUnsupported, "moses.ini sections %s", strings.Join(unknown, ", "))
	}
	if err := p.settings(c, byName, headers); err != nil {
		return nil, err
	}
	if err := p.features(c, byName["feature"]); err != nil {
		return nil, err
	}
	if err := p.weights(c, byName, headers); err != nil {
		return nil, err
	}
	return c, nil
}

// one returns the single value of section sec, or ok false when absent.
func (p *configParser) one(byName map[string][]secLine, headers map[string]int, sec string) (secLine, bool, error) {
	ls, ok := byName[sec]
	if !ok {
		if h, present := headers[sec]; present {
			return secLine{}, false, p.errAt(h, 0, ErrSyntax, "[%s] has no value", sec)
		}
		return secLine{}, false, nil
	}
	if len(ls) > 1 {
		return secLine{}, false, p.errAt(ls[1].line, 0, ErrSyntax, "[%s] has %d values, want 1", sec, len(ls))
	}
	return ls[0], true, nil
}

func (p *configParser) settings(c *Config, byName map[string][]secLine, headers map[string]int) error {
	for _, l := range byName["input-factors"] {
		if l.text != "0" {
			return p.errAt(l.line, 0, ErrUnsupported, "input factor %s: only factor 0", textpos.Quote(l.text))
		}
	}
	for _, l := range byName["mapping"] {
		if f := splitBlank(l.text); !slices.Equal(f, []string{"0", "T", "0"}) && !slices.Equal(f, []string{"T", "0"}) {
			return p.errAt(l.line, 0, ErrUnsupported, "mapping %s: only one translation step \"0 T 0\"", textpos.Quote(l.text))
		}
	}
	if len(byName["mapping"]) > 1 {
		return p.errAt(byName["mapping"][1].line, 0, ErrUnsupported, "more than one mapping step")
	}
	ints := []struct {
		sec string
		dst *int
		min int
	}{
		{"distortion-limit", &c.DistortionLimit, minDistortion},
		{"max-phrase-length", &c.MaxPhraseLength, 1},
		{"stack", &c.StackSize, 1},
		{"cube-pruning-pop-limit", &c.CubePruningPopLimit, 1},
		{"cube-pruning-diversity", &c.CubePruningDiversity, 0},
	}
	for _, s := range ints {
		l, ok, err := p.one(byName, headers, s.sec)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		n, err := strconv.Atoi(l.text)
		if err != nil || n < s.min || n > 1<<30 {
			return p.errAt(l.line, 0, ErrNumber, "[%s] value %s is not an integer ≥ %d", s.sec, textpos.Quote(l.text), max(s.min, -1<<30))
		}
		*s.dst = n
	}
	if l, ok, err := p.one(byName, headers, "search-algorithm"); err != nil {
		return err
	} else if ok {
		n, err := strconv.Atoi(l.text)
		if err != nil {
			return p.errAt(l.line, 0, ErrNumber, "[search-algorithm] value %s is not an integer", textpos.Quote(l.text))
		}
		if n != SearchNormal && n != SearchCubePruning {
			what := "unknown to Moses"
			if name, ok := mosesAlgorithms[n]; ok {
				what = "Moses' " + name
			}
			return p.errAt(l.line, 0, ErrUnsupported, "[search-algorithm] %d (%s): mtune has %d (normal stack search) and %d (cube pruning)",
				n, what, SearchNormal, SearchCubePruning)
		}
		c.SearchAlgorithm = n
	}
	if l, ok, err := p.one(byName, headers, "beam-threshold"); err != nil {
		return err
	} else if ok {
		x, ok := parseFloat([]byte(l.text))
		if !ok || x < 0 {
			return p.errAt(l.line, 0, ErrNumber, "[beam-threshold] value %s is not a number ≥ 0", textpos.Quote(l.text))
		}
		c.BeamThreshold = x
	}
	bools := []struct {
		sec string
		dst *bool
	}{
		{"early-distortion-cost", &c.EarlyDistortionCost},
		{"include-segmentation-in-n-best", &c.IncludeSegmentation},
		{"print-alignment-info-in-n-best", &c.IncludeAlignment},
	}
	for _, s := range bools {
		ls := byName[s.sec]
		if _, present := headers[s.sec]; !present {
			continue
		}
		if len(ls) == 0 { // a bare switch, as on Moses' command line
			*s.dst = true
			continue
		}
		if len(ls) > 1 {
			return p.errAt(ls[1].line, 0, ErrSyntax, "[%s] has %d values, want 1", s.sec, len(ls))
		}
		b, ok := parseBool(ls[0].text)
		if !ok {
			return p.errAt(ls[0].line, 0, ErrSyntax, "[%s] value %s is not a boolean", s.sec, textpos.Quote(ls[0].text))
		}
		*s.dst = b
	}
	if ls := byName["n-best-list"]; len(ls) > 0 {
		var toks []string
		for _, l := range ls {
			toks = append(toks, splitBlank(l.text)...)
		}
		if len(toks) < 2 || len(toks) > 3 || (len(toks) == 3 && toks[2] != "distinct") {
			return p.errAt(ls[0].line, 0, ErrSyntax, "[n-best-list] wants \"file size [distinct]\", has %s", textpos.Quote(strings.Join(toks, " ")))
		}
		n, err := strconv.Atoi(toks[1])
		if err != nil || n < 1 || n > 1<<30 {
			return p.errAt(ls[0].line, 0, ErrNumber, "n-best size %s", textpos.Quote(toks[1]))
		}
		f, err := p.expand(toks[0])
		if err != nil {
			return p.lineErr(ls[0].line, err)
		}
		c.NBestFile, c.NBestSize, c.NBestDistinct = f, n, len(toks) == 3
	}
	if l, ok, err := p.one(byName, headers, "weight-file"); err != nil {
		return err
	} else if ok {
		f, err := p.expand(l.text)
		if err != nil {
			return p.lineErr(l.line, err)
		}
		if c.WeightFile, err = p.resolve(l.text, f); err != nil {
			return p.lineErr(l.line, err)
		}
	}
	return nil
}

// minDistortion bounds [distortion-limit] below (any negative value means
// no limit).
const minDistortion = -1 << 30

func (p *configParser) lineErr(line int, err error) error {
	return &ParseError{File: p.name, Line: line, Err: err}
}

// splitBlank splits s on spaces and tabs, as Moses' Tokenize does.
func splitBlank(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })
}

// parseBool parses a boolean as Moses' Scan<bool> does.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "y":
		return true, true
	case "0", "false", "no", "n":
		return false, true
	}
	return false, false
}

// expand substitutes ${NAME} from the environment (ExpandVars).
func (p *configParser) expand(s string) (string, error) { return ExpandVars(s, p.opts.Getenv) }

// ExpandVars substitutes every ${NAME} of a moses.ini value s through
// getenv, as mtune's decoder reads a moses.ini. An unclosed "${" or a bad
// name is an error wrapping ErrSyntax, an unset variable one wrapping
// ErrConfig.
func ExpandVars(s string, getenv func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("%w: unclosed \"${\" in %q", ErrSyntax, s)
		}
		name := s[i+2 : i+j]
		if !validEnvName(name) {
			return "", fmt.Errorf("%w: bad variable name %q in %q", ErrSyntax, name, s)
		}
		v, ok := getenv(name)
		if !ok {
			return "", fmt.Errorf("%w: environment variable %s is not set (used in %q)", ErrConfig, name, s)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// resolve returns where the path written raw in the ini, expanded after
// ${NAME} substitution, points; see resolveConfigPath.
func (p *configParser) resolve(raw, expanded string) (string, error) {
	wd := ""
	if strings.HasPrefix(raw, "${") {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("%w: resolving %s: %w", ErrConfig, expanded, err)
		}
	}
	path, err := resolveConfigPath(p.dir, wd, raw, expanded)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return path, nil
}

// resolveConfigPath returns where a path of a moses.ini points: raw as
// written, expanded after ${NAME} substitution. An empty, gs:// or
// absolute path is kept. A relative path that starts with a variable
// ("${MODEL_PATH}/lm", MODEL_PATH=models/m1) is resolved against the
// working directory wd, as Moses does, since the variable was given
// relative to it; any other relative path against the ini's folder iniDir
// by storage.Resolve, which refuses one that climbs out of a gs:// bucket.
func resolveConfigPath(iniDir, wd, raw, expanded string) (string, error) {
	if expanded == "" || storage.IsGCS(expanded) || filepath.IsAbs(expanded) {
		return expanded, nil
	}
	if strings.HasPrefix(raw, "${") {
		return filepath.Join(wd, expanded), nil
	}
	return storage.Resolve(iniDir, expanded)
}

// featureKeys lists the arguments each supported feature type accepts
// besides name= and num-features= (common: tuneable=, filterable=).
var featureKeys = map[string][]string{
	TypeKENLM:                  {"factor", "order", "path", "lazyken", "load"},
	TypeDistortion:             nil,
	TypeLexicalReordering:      {"type", "input-factor", "output-factor", "path", "default-scores"},
	TypeWordPenalty:            nil,
	TypeUnknownWordPenalty:     nil,
	TypePhrasePenalty:          nil,
	TypePhraseDictionaryMemory: {"path", "table-limit", "input-factor", "output-factor", "cache-size"},
}

func (p *configParser) features(c *Config, lines []secLine) error {
	counts := map[string]int{}
	var unknown []string
	firstUnknown := 0
	seen := map[string]int{}
	for _, l := range lines {
		toks := splitBlank(l.text)
		f := Feature{Type: toks[0], Line: l.line, NumFeatures: -1}
		keys := map[string]bool{}
		for _, tok := range toks[1:] {
			k, v, ok := strings.Cut(tok, "=")
			if !ok || k == "" {
				return p.errAt(l.line, 0, ErrSyntax, "feature argument %s is not key=value", textpos.Quote(tok))
			}
			if keys[k] {
				return p.errAt(l.line, 0, ErrSyntax, "duplicate key %s", textpos.Quote(k))
			}
			keys[k] = true
			raw := v
			v, err := p.expand(v)
			if err != nil {
				return p.lineErr(l.line, err)
			}
			switch k {
			case "name":
				if v == "" {
					return p.errAt(l.line, 0, ErrSyntax, "empty name=")
				}
				f.Name = v
			case "num-features":
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > maxNumFeatures {
					return p.errAt(l.line, 0, ErrNumber, "num-features=%s", textpos.Quote(v))
				}
				f.NumFeatures = n
			case "path":
				path, err := p.resolve(raw, v)
				if err != nil {
					return p.lineErr(l.line, err)
				}
				f.Args = append(f.Args, Arg{k, path})
			default:
				f.Args = append(f.Args, Arg{k, v})
			}
		}
		if f.Name == "" {
			f.Name = f.Type + strconv.Itoa(counts[f.Type])
			counts[f.Type]++
		}
		if prev, dup := seen[f.Name]; dup {
			return p.errAt(l.line, 0, ErrConfig, "feature name %s already used on line %d", f.Name, prev)
		}
		seen[f.Name] = l.line
		if _, ok := featureKeys[f.Type]; !ok {
			unknown = append(unknown, fmt.Sprintf("%s (line %d)", f.Type, l.line))
			if firstUnknown == 0 {
				firstUnknown = l.line
			}
			continue
		}
		if f.NumFeatures < 0 {
			f.NumFeatures = 1
			if f.Type == TypeLexicalReordering {
				if rt, err := f.ReorderingType(); err == nil {
					f.NumFeatures = rt.NumScores()
				}
			}
		}
		if err := validateFeature(&f, false); err != nil {
			return p.lineErr(l.line, err)
		}
		c.Features = append(c.Features, f)
	}
	if len(unknown) > 0 {
		return p.errAt(firstUnknown, 0, ErrUnsupported, "feature types %s (supported: %s)",
			strings.Join(unknown, ", "), strings.Join(supportedTypes(), ", "))
	}
	return nil
}

func supportedTypes() []string {
	var out []string
	for t := range featureKeys {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// validateFeature checks a feature's arguments against its type; forWrite
// also rejects values WriteConfig cannot write (a value read from a file
// has no blank, but a relative path resolved against the ini's folder
// may: "/my models/pt.gz").
func validateFeature(f *Feature, forWrite bool) error {
	allowed, ok := featureKeys[f.Type]
	if !ok {
		return fmt.Errorf("%w: feature type %s", ErrUnsupported, f.Type)
	}
	if f.Name == "" || strings.ContainsAny(f.Name, " \t\n\r=#") || !utf8.ValidString(f.Name) {
		return fmt.Errorf("%w: feature name %q", ErrConfig, f.Name)
	}
	seen := map[string]bool{}
	for _, a := range f.Args {
		switch {
		case a.Key == "" || strings.ContainsAny(a.Key, " \t\n\r=#") || (forWrite && strings.ContainsAny(a.Value, " \t\n\r#")) || !utf8.ValidString(a.Key+a.Value):
			return fmt.Errorf("%w: %s: argument %q=%q cannot be written", ErrSyntax, f.Name, a.Key, a.Value)
		case a.Key == "name" || a.Key == "num-features" || seen[a.Key]:
			return fmt.Errorf("%w: %s: duplicate key %s", ErrSyntax, f.Name, textpos.Quote(a.Key))
		case a.Key == "tuneable":
			if _, ok := parseBool(a.Value); !ok {
				return fmt.Errorf("%w: %s: tuneable=%s is not a boolean", ErrSyntax, f.Name, textpos.Quote(a.Value))
			}
		case a.Key == "filterable":
		case !slices.Contains(allowed, a.Key):
			return fmt.Errorf("%w: %s: argument %s=%s", ErrUnsupported, f.Name, a.Key, a.Value)
		}
		seen[a.Key] = true
		switch a.Key {
		case "factor", "input-factor", "output-factor":
			if a.Value != "0" {
				return fmt.Errorf("%w: %s: %s=%s (only factor 0)", ErrUnsupported, f.Name, a.Key, a.Value)
			}
		case "order", "table-limit", "cache-size":
			n, err := strconv.Atoi(a.Value)
			if err != nil || n < 0 || (a.Key == "order" && n < 1) {
				return fmt.Errorf("%w: %s: %s=%s", ErrNumber, f.Name, a.Key, textpos.Quote(a.Value))
			}
		case "lazyken":
			if _, ok := parseBool(a.Value); !ok {
				return fmt.Errorf("%w: %s: lazyken=%s", ErrSyntax, f.Name, textpos.Quote(a.Value))
			}
		case "load":
			if !slices.Contains([]string{"lazy", "populate", "read", "parallel_read"}, a.Value) {
				return fmt.Errorf("%w: %s: load=%s", ErrSyntax, f.Name, textpos.Quote(a.Value))
			}
		case "path":
			if a.Value == "" {
				return fmt.Errorf("%w: %s: empty path=", ErrConfig, f.Name)
			}
		}
	}
	want := 1
	switch f.Type {
	case TypeKENLM, TypePhraseDictionaryMemory, TypeLexicalReordering:
		if f.Path() == "" {
			return fmt.Errorf("%w: %s has no path=", ErrConfig, f.Name)
		}
	}
	switch f.Type {
	case TypePhraseDictionaryMemory:
		want = f.NumFeatures
		if want < 1 {
			return fmt.Errorf("%w: %s: num-features=%d", ErrConfig, f.Name, want)
		}
	case TypeLexicalReordering:
		rt, err := f.ReorderingType()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		want = rt.NumScores()
		ds, err := f.DefaultScores()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if ds != nil && len(ds) != want {
			return fmt.Errorf("%w: %s: %d default-scores for %d scores", ErrConfig, f.Name, len(ds), want)
		}
	}
	if f.NumFeatures != want {
		return fmt.Errorf("%w: %s: num-features=%d, %s has %d", ErrConfig, f.Name, f.NumFeatures, f.Type, want)
	}
	return nil
}

func (p *configParser) weights(c *Config, byName map[string][]secLine, headers map[string]int) error {
	if _, ok := headers["weight"]; !ok {
		return p.errAt(0, 0, ErrConfig, "no [weight] section")
	}
	// Give package weights only the [weight] section, with its line
	// numbers kept by blank lines.
	var b strings.Builder
	last := 0
	for _, l := range byName["weight"] {
		b.WriteString(strings.Repeat("\n", l.line-last-1))
		b.WriteString(l.text)
		b.WriteByte('\n')
		last = l.line
	}
	ws, err := weights.ReadMoses(strings.NewReader(b.String()), p.opts.Index)
	if err != nil {
		var pe *weights.ParseError
		if errors.As(err, &pe) {
			return &ParseError{File: p.name, Line: pe.Line, Column: pe.Column, Err: pe.Err}
		}
		return fmt.Errorf("model: %s: %w", p.name, err)
	}
	c.Weights = ws
	log := p.opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return checkWeights(c, p.name, headers["weight"], log)
}

// checkWeights checks that the weights fit the features and adds the
// default weights Moses gives features the [weight] section leaves out.
func checkWeights(c *Config, file string, line int, log *slog.Logger) error {
	feats := map[string]*Feature{}
	for i := range c.Features {
		feats[c.Features[i].Name] = &c.Features[i]
	}
	var stray []string
	for _, g := range c.Weights.Groups {
		f, ok := feats[g.Label]
		if !ok {
			stray = append(stray, g.Label)
			continue
		}
		if g.Len != f.NumFeatures {
			return errAt(file, line, 0, ErrConfig, "%d weights for %s, which has %d features", g.Len, g.Label, f.NumFeatures)
		}
	}
	if len(stray) > 0 {
		return errAt(file, line, 0, ErrConfig, "weights for %s, which no feature has", strings.Join(stray, ", "))
	}
	for _, f := range c.Features {
		if _, ok := c.Weights.Group(f.Name); ok {
			continue
		}
		if f.Type != TypeUnknownWordPenalty {
			log.Warn("model: no weights for a feature; using 1 for each component as Moses does", "file", file, "feature", f.Name)
		}
		c.Weights.Groups = append(c.Weights.Groups, feature.Group{Label: f.Name, Len: f.NumFeatures})
		for i := range f.NumFeatures {
			c.Weights.SetValue(feature.DenseName(f.Name, i), 1)
		}
	}
	return nil
}

// WriteConfig writes c as a moses.ini: [input-factors] and [mapping] for
// one translation step, the search settings that differ from Moses'
// defaults ([distortion-limit] always), the n-best settings when
// NBestFile is set, [feature] and [weight] (weights of every feature, in
// c.Weights' order). A feature line carries name= only when Moses'
// numbering would not give the feature its Name, and num-features= for
// phrase tables, reordering models and counts other than 1. Paths are
// written as they are: Moses resolves relative paths against its working
// directory, ReadConfig against the file's folder, so absolute paths (or
// ${NAME}) suit both. It returns an error, writing nothing, for a
// configuration ReadConfig would reject.
func WriteConfig(w io.Writer, c *Config) error {
	if err := c.validate(); err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("#########################\n### MOSES CONFIG FILE ###\n#########################\n\n")
	b.WriteString("# input factors\n[input-factors]\n0\n\n# mapping steps\n[mapping]\n0 T 0\n\n")
	fmt.Fprintf(&b, "[distortion-limit]\n%d\n\n", c.DistortionLimit)
	if c.EarlyDistortionCost {
		b.WriteString("[early-distortion-cost]\nyes\n\n")
	}
	if c.MaxPhraseLength != DefaultMaxPhraseLength {
		fmt.Fprintf(&b, "[max-phrase-length]\n%d\n\n", c.MaxPhraseLength)
	}
	if c.StackSize != DefaultStackSize {
		fmt.Fprintf(&b, "[stack]\n%d\n\n", c.StackSize)
	}
	if c.BeamThreshold != DefaultBeamThreshold {
		fmt.Fprintf(&b, "[beam-threshold]\n%s\n\n", strconv.FormatFloat(c.BeamThreshold, 'g', -1, 64))
	}
	if c.SearchAlgorithm != SearchNormal {
		fmt.Fprintf(&b, "[search-algorithm]\n%d\n\n", c.SearchAlgorithm)
	}
	if c.CubePruningPopLimit != DefaultCubePruningPopLimit {
		fmt.Fprintf(&b, "[cube-pruning-pop-limit]\n%d\n\n", c.CubePruningPopLimit)
	}
	if c.CubePruningDiversity != DefaultCubePruningDiversity {
		fmt.Fprintf(&b, "[cube-pruning-diversity]\n%d\n\n", c.CubePruningDiversity)
	}
	if c.NBestFile != "" {
		fmt.Fprintf(&b, "[n-best-list]\n%s\n%d\n", c.NBestFile, c.NBestSize)
		if c.NBestDistinct {
			b.WriteString("distinct\n")
		}
		b.WriteString("\n")
	}
	if c.IncludeSegmentation {
		b.WriteString("[include-segmentation-in-n-best]\nyes\n\n")
	}
	if c.IncludeAlignment {
		b.WriteString("[print-alignment-info-in-n-best]\nyes\n\n")
	}
	if c.WeightFile != "" {
		fmt.Fprintf(&b, "[weight-file]\n%s\n\n", c.WeightFile)
	}
	b.WriteString("# feature functions\n[feature]\n")
	counts := map[string]int{}
	for _, f := range c.Features {
		b.WriteString(f.Type)
		if auto := f.Type + strconv.Itoa(counts[f.Type]); f.Name == auto {
			counts[f.Type]++
		} else {
			b.WriteString(" name=" + f.Name)
		}
		if f.Type == TypePhraseDictionaryMemory || f.Type == TypeLexicalReordering || f.NumFeatures != 1 {
			fmt.Fprintf(&b, " num-features=%d", f.NumFeatures)
		}
		for _, a := range f.Args {
			b.WriteString(" " + a.Key + "=" + a.Value)
		}
		b.WriteByte('\n')
	}
	b.WriteString("\n# dense weights for feature functions\n")
	if err := weights.WriteMoses(&b, c.Weights, weights.StyleINI); err != nil {
		return fmt.Errorf("model: writing weights: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// validate checks what WriteConfig needs and ReadConfig would check.
func (c *Config) validate() error {
	if c.Weights == nil {
		return fmt.Errorf("model: %w: no weights", ErrConfig)
	}
	if c.MaxPhraseLength < 1 || c.StackSize < 1 || !(c.BeamThreshold >= 0) || math.IsInf(c.BeamThreshold, 1) || c.NBestSize < 0 ||
		c.DistortionLimit < minDistortion || c.DistortionLimit > 1<<30 || c.MaxPhraseLength > 1<<30 || c.StackSize > 1<<30 || c.NBestSize > 1<<30 ||
		c.SearchAlgorithm != SearchNormal && c.SearchAlgorithm != SearchCubePruning ||
		c.CubePruningPopLimit < 1 || c.CubePruningPopLimit > 1<<30 || c.CubePruningDiversity < 0 || c.CubePruningDiversity > 1<<30 {
		return fmt.Errorf("model: %w: search settings out of range (use NewConfig for Moses' defaults)", ErrConfig)
	}
	if c.NBestFile != "" && (c.NBestSize < 1 || strings.ContainsAny(c.NBestFile, " \t\n\r#") || !utf8.ValidString(c.NBestFile)) {
		return fmt.Errorf("model: %w: n-best file %q and size %d", ErrConfig, c.NBestFile, c.NBestSize)
	}
	if strings.ContainsAny(c.WeightFile, "\n\r#") || !utf8.ValidString(c.WeightFile) || strings.TrimSpace(c.WeightFile) != c.WeightFile {
		return fmt.Errorf("model: %w: weight file %q", ErrConfig, c.WeightFile)
	}
	if strings.Contains(c.NBestFile+c.WeightFile, "${") {
		return fmt.Errorf("model: %w: \"${\" in a path would be read as a variable", ErrConfig)
	}
	names := map[string]bool{}
	for i := range c.Features {
		f := &c.Features[i]
		if names[f.Name] {
			return fmt.Errorf("model: %w: feature name %s used twice", ErrConfig, f.Name)
		}
		names[f.Name] = true
		if strings.ContainsAny(f.Type, " \t\n\r=#[") || f.Type == "" {
			return fmt.Errorf("model: %w: feature type %q", ErrConfig, f.Type)
		}
		if err := validateFeature(f, true); err != nil {
			return fmt.Errorf("model: %w", err)
		}
		for _, a := range f.Args {
			if strings.Contains(a.Value, "${") {
				return fmt.Errorf("model: %w: %s: \"${\" in %s=%s would be read as a variable", ErrConfig, f.Name, a.Key, a.Value)
			}
		}
	}
	if err := c.Weights.Validate(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	for _, g := range c.Weights.Groups {
		f, ok := c.Feature(g.Label)
		if !ok {
			return fmt.Errorf("model: %w: weights for %s, which no feature has", ErrConfig, g.Label)
		}
		if g.Len != f.NumFeatures {
			return fmt.Errorf("model: %w: %d weights for %s, which has %d features", ErrConfig, g.Len, g.Label, f.NumFeatures)
		}
	}
	for _, f := range c.Features {
		if _, ok := c.Weights.Group(f.Name); !ok {
			return fmt.Errorf("model: %w: no weights for %s", ErrConfig, f.Name)
		}
	}
	return nil
}
