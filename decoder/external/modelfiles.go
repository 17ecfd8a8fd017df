package external

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mtune/mtune/decoder/model"
)

// ErrModelFile marks a moses.ini whose model files cannot be listed: an
// unset ${NAME} in a path, or a path that names no file.
var ErrModelFile = errors.New("external: model file")

// ModelPath is a path to a model file or folder that a moses.ini gives its
// decoder to load.
type ModelPath struct {
	// Feature names what loads it: the feature's name= in [feature] (the
	// type and its count when unnamed, as Moses names it: KENLM0), or the
	// section and its line's number in it for the sections of Moses'
	// older format (ttable-file 1) and weight-file.
	Feature string
	// Line is the moses.ini's line that gives it, 1-based.
	Line int
	// Path is the path as written, after ${NAME} substitution.
	Path string
}

// oldSections are the sections of Moses' format before [feature] whose
// lines end in a model file, and [weight-file].
var oldSections = map[string]bool{
	"ttable-file": true, "lmodel-file": true, "distortion-file": true,
	"generation-file": true, "global-lexical-file": true, "weight-file": true,
}

// iniVariable matches the ${NAME} of a moses.ini.
var iniVariable = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ModelPaths lists the model paths of the moses.ini text data (named name
// in errors): the path= (and file=) arguments of its [feature] lines, the
// last word of every line of the older sections [ttable-file],
// [lmodel-file], [distortion-file], [generation-file] and
// [global-lexical-file], and [weight-file]. It reads nothing else of the
// ini, so that it lists the files of a model mtune cannot decode itself.
// ${NAME} is replaced through getenv (nil means os.LookupEnv) as mtune's
// decoder replaces it (model.ExpandVars); an unset variable in a path, or
// an empty path, is an error naming the line.
func ModelPaths(data []byte, name string, getenv func(string) (string, bool)) ([]ModelPath, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	var out []ModelPath
	types := map[string]int{}
	section, inSection := "", 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		if text[0] == '[' && text[len(text)-1] == ']' {
			section, inSection = strings.TrimSpace(text[1:len(text)-1]), 0
			continue
		}
		words := strings.Fields(text)
		var paths []string
		var feature string
		switch {
		case section == "feature":
			typ := words[0]
			feature = typ + strconv.Itoa(types[typ])
			types[typ]++
			for _, w := range words[1:] {
				key, value, ok := strings.Cut(w, "=")
				switch {
				case !ok:
				case key == "name" && value != "":
					feature = value
				case key == "path" || key == "file":
					paths = append(paths, value)
				}
			}
		case oldSections[section]:
			inSection++
			feature = section + " " + strconv.Itoa(inSection)
			paths = words[len(words)-1:]
		}
		for _, p := range paths {
			expanded, err := model.ExpandVars(p, getenv)
			if err == nil && expanded == "" {
				err = errors.New("empty path")
			}
			if err != nil {
				return nil, fmt.Errorf("%w: %s:%d: %s: %w", ErrModelFile, name, line, feature, err)
			}
			out = append(out, ModelPath{Feature: feature, Line: line, Path: expanded})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrModelFile, name, err)
	}
	return out, nil
}

// Files returns the local files that p names, for checksumming: p itself
// when it is a file; every file below it, in lexical order, when it is a
// folder (a binarised table such as ProbingPT's); otherwise every file
// whose name is p's followed by a dot and more (Moses adds .gz, .minphr,
// .minlexr to a table's path). A relative path is looked up in the working
// directory, where Moses resolves it, and then in iniDir, where "mtune
// decode" resolves it. A path that names none of these is an error
// wrapping ErrModelFile.
func (p ModelPath) Files(iniDir string) ([]string, error) {
	candidates := []string{p.Path}
	if beside := filepath.Join(iniDir, p.Path); !filepath.IsAbs(p.Path) && iniDir != "" && beside != filepath.Clean(p.Path) {
		candidates = append(candidates, beside)
	}
	for _, c := range candidates {
		files, err := pathFiles(c)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %s: %w", ErrModelFile, p.Line, p.Feature, err)
		}
		if len(files) > 0 {
			return files, nil
		}
	}
	return nil, fmt.Errorf("%w: line %d: %s: no file or folder %s, nor %s.*", ErrModelFile, p.Line, p.Feature,
		strings.Join(candidates, " or "), p.Path)
}

// pathFiles returns the files path names (see Files), none when it names
// nothing.
func pathFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		var files []string
		err := filepath.WalkDir(path, func(f string, d fs.DirEntry, err error) error {
			if err == nil && isFile(f, d) {
				files = append(files, f)
			}
			return err
		})
		return files, err // WalkDir visits in lexical order
	case err == nil:
		return []string{path}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	prefix := filepath.Base(path) + "."
	for _, e := range entries {
		if f := filepath.Join(filepath.Dir(path), e.Name()); strings.HasPrefix(e.Name(), prefix) && isFile(f, e) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files, nil
}

// isFile reports whether the entry d at path is a file or a link to one
// (model folders are often links to the files of a training run).
func isFile(path string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// IniVariables returns the names of the ${NAME} variables the moses.ini
// text data uses, each once, in order of first use.
func IniVariables(data []byte) []string {
	var names []string
	for _, m := range iniVariable.FindAllSubmatch(data, -1) {
		if n := string(m[1]); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}
