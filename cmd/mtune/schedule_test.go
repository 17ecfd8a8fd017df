package main

// Tests of scripts/schedule: every scheduler's file is read as its scheduler
// would read it (cron's line and its shell, systemd's unit syntax and
// ExecStart quoting, Kubernetes' and Cloud Run's YAML and $(VAR) expansion,
// the Dockerfile's stages), the mtune command line in it is expanded with
// sample values and parsed by mtune's own flag parser, and the settings
// that decide what a scheduler does with each exit status are checked.
// Nothing is run but "systemd-analyze verify" and "bash -n", when present.

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mtune/mtune/internal/cliflag"
	"github.com/mtune/mtune/registry"
)

const scheduleDir = "../../scripts/schedule"

// scheduleSubst are the command substitutions the files use, with the
// output they stand for in the test.
var scheduleSubst = map[string]string{
	"date -u +%F":     "2026-11-24",
	"date -u +%FT%TZ": "2026-11-24T02:30:00Z",
}

// scheduleSourced maps the paths the files source or read to the file of
// scripts/schedule installed there.
var scheduleSourced = map[string]string{
	"/etc/mtune/retrain.env": "mtune-retrain.env",
}

// scheduleFieldRefs are sample values of the Downward API fields the
// CronJob's pods read.
var scheduleFieldRefs = map[string]string{
	"metadata.labels['batch.kubernetes.io/job-name']": "mtune-retrain-29412345",
}

func scheduleRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(scheduleDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestScheduleCommandLines extracts the mtune command line of every
// scheduler's file, expands it as the scheduler would (with sample values)
// and parses it with retrain's flag set: every flag must be known, Beam's
// included, and the night's essentials given.
func TestScheduleCommandLines(t *testing.T) {
	entry := scheduleEntrypoint(t)
	cases := []struct {
		file    string
		extract func(t *testing.T, text string) [][]string
		bin     string // the binary that runs
		runID   string // after expansion; "" means not given
	}{
		{"crontab", scheduleCrontabCommands, "/usr/local/bin/mtune", "2026-11-24"},
		{"mtune-retrain.service", scheduleServiceCommands, "/usr/local/bin/mtune", "2026-11-24"},
		{"cronjob.yaml", func(t *testing.T, text string) [][]string {
			return [][]string{scheduleCronJobArgv(t, text, entry)}
		}, "/mtune", "mtune-retrain-29412345"},
		{"cloudrun-job.yaml", func(t *testing.T, text string) [][]string {
			return [][]string{scheduleCloudRunArgv(t, text, entry)}
		}, "/mtune", ""},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			var mt [][]string
			for _, argv := range tc.extract(t, scheduleRead(t, tc.file)) {
				if len(argv) > 0 && filepath.Base(argv[0]) == "mtune" {
					mt = append(mt, argv)
				}
			}
			if len(mt) != 1 {
				t.Fatalf("want one mtune command line, found %d: %q", len(mt), mt)
			}
			argv := mt[0]
			if argv[0] != tc.bin {
				t.Errorf("runs %s, want %s", argv[0], tc.bin)
			}
			if len(argv) < 2 || argv[1] != "retrain" {
				t.Fatalf("not an mtune retrain command line: %q", argv)
			}
			fs := scheduleParseRetrain(t, argv[2:])
			val := func(name string) string {
				f := fs.Lookup(name)
				if f == nil {
					t.Fatalf("retrain has no flag --%s", name)
				}
				return f.Value.String()
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if !strings.HasPrefix(val("registry"), "gs://") {
				t.Errorf("--registry %q: want a gs:// registry", val("registry"))
			}
			for _, name := range []string{"config", "src", "ref", "dev-src", "dev-ref"} {
				if !set[name] {
					t.Errorf("no --%s: a scheduled night tunes the real model, not the demo", name)
				}
			}
			if got := val("run-id"); got != tc.runID || set["run-id"] != (tc.runID != "") {
				t.Errorf("--run-id %q (given: %v), want %q", got, set["run-id"], tc.runID)
			}
			if set["run-id"] {
				if err := registry.CheckRunID(val("run-id")); err != nil {
					t.Error(err)
				}
			}
			if val("runner") != "dataflow" {
				t.Errorf("--runner %q, want dataflow", val("runner"))
			}
			for _, name := range []string{"project", "region", "temp_location", "staging_location", "worker_binary"} {
				if !set[name] {
					t.Errorf("--runner dataflow without --%s", name)
				}
			}
			if wb := val("worker_binary"); wb != argv[0] {
				t.Errorf("--worker_binary %s: want the binary that runs, %s (a static linux/amd64 build)", wb, argv[0])
			}
		})
	}
}

// scheduleParseRetrain parses args as main's run does for "mtune retrain",
// and puts back the Beam flags (shared with flag.CommandLine) it sets.
func scheduleParseRetrain(t *testing.T, args []string) *flag.FlagSet {
	t.Helper()
	restoreBeamFlags(t)
	c, ok := lookup("retrain")
	if !ok {
		t.Fatal("no retrain command")
	}
	var out bytes.Buffer
	fs, _ := newFlagSet(c, &out)
	pos, err := cliflag.ParseInterspersed(fs, cliflag.ExpandMulti(args, c.multi))
	if err != nil {
		t.Fatalf("mtune retrain %q: %v\n%s", args, err, out.String())
	}
	if len(pos) > 0 {
		t.Errorf("positional arguments %q: retrain takes none", pos)
	}
	return fs
}

// --- cron ---

var scheduleEnvAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// scheduleCrontabEntries returns the crontab's entries: the five time
// fields and the command, as written.
func scheduleCrontabEntries(t *testing.T, text string) (entries [][2]string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "#") || scheduleEnvAssign.MatchString(trim) {
			continue
		}
		rest := trim
		var fields []string
		for len(fields) < 5 {
			f, r, ok := strings.Cut(rest, " ")
			if !ok {
				t.Fatalf("crontab line %d: want five time fields and a command: %q", i+1, line)
			}
			if f != "" {
				fields = append(fields, f)
			}
			rest = strings.TrimLeft(r, " \t")
		}
		entries = append(entries, [2]string{strings.Join(fields, " "), rest})
	}
	if len(entries) == 0 {
		t.Fatal("crontab: no entry")
	}
	return entries
}

func scheduleCrontabCommands(t *testing.T, text string) [][]string {
	var cmds [][]string
	for _, e := range scheduleCrontabEntries(t, text) {
		// cron turns "\%" into "%" and the first bare "%" into the end of
		// the command; the test for the latter is TestScheduleCrontab.
		sh := scheduleShell{t: t, vars: map[string]string{}}
		cmds = append(cmds, sh.run(strings.ReplaceAll(e[1], `\%`, "%"))...)
	}
	return cmds
}

func TestScheduleCrontab(t *testing.T) {
	for _, e := range scheduleCrontabEntries(t, scheduleRead(t, "crontab")) {
		if err := scheduleCronSchedule(e[0]); err != nil {
			t.Error(err)
		}
		if e[0] != "30 2 * * *" {
			t.Errorf("schedule %q, want 02:30 every day (30 2 * * *)", e[0])
		}
		cmd := e[1]
		for i := strings.IndexByte(cmd, '%'); i >= 0; i = strings.IndexByte(cmd, '%') {
			if i == 0 || cmd[i-1] != '\\' {
				t.Errorf("unescaped %% in the command (cron ends the command there): …%s", cmd[max(0, i-20):i+1])
			}
			cmd = cmd[i+1:]
		}
	}
}

// scheduleCronSchedule checks five cron time fields: numbers, ranges,
// steps and lists within each field's bounds.
func scheduleCronSchedule(s string) error {
	fields := strings.Fields(s)
	if len(fields) != 5 {
		return &scheduleError{"schedule " + strconv.Quote(s) + ": want 5 fields"}
	}
	bounds := [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}
	for i, f := range fields {
		for _, item := range strings.Split(f, ",") {
			rng, step, hasStep := strings.Cut(item, "/")
			if hasStep {
				if n, err := strconv.Atoi(step); err != nil || n < 1 {
					return &scheduleError{"schedule " + strconv.Quote(s) + ": bad step in " + strconv.Quote(f)}
				}
			}
			if rng == "*" {
				continue
			}
			lo, hi, isRange := strings.Cut(rng, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a > b || a < bounds[i][0] || b > bounds[i][1] {
				return &scheduleError{"schedule " + strconv.Quote(s) + ": bad field " + strconv.Quote(f)}
			}
		}
	}
	return nil
}

type scheduleError struct{ msg string }

func (e *scheduleError) Error() string { return e.msg }

func TestScheduleCronSyntax(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"30 2 * * *", true}, {"*/15 2,6 1-31 * 0-7", true}, {"30 2 * *", false},
		{"60 2 * * *", false}, {"30 24 * * *", false}, {"30 2 0 * *", false}, {"30 2 * * mon", false}, {"*/0 2 * * *", false},
	} {
		if err := scheduleCronSchedule(tc.s); (err == nil) != tc.ok {
			t.Errorf("%q: error %v, want ok=%v", tc.s, err, tc.ok)
		}
	}
}

// --- a small POSIX shell reader, enough for the crontab line and the
// service's sh -c script ---

// scheduleShell splits a shell command line into simple commands and
// expands their words: quotes, backslashes, $NAME and ${NAME} (split into
// fields when unquoted), $? and the command substitutions of
// scheduleSubst. It runs ". FILE" (FILE from scheduleSourced), assignments
// and exec's replacement of the shell; it drops redirections.
type scheduleShell struct {
	t    *testing.T
	vars map[string]string
}

func (sh *scheduleShell) run(line string) [][]string {
	t := sh.t
	t.Helper()
	var cmds [][]string
	var words []string
	var cur strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if cmd := sh.builtins(words); len(cmd) > 0 {
			cmds = append(cmds, cmd)
		}
		words = nil
	}
	// expand appends the value of $… at s[i:] to the word (split into fields
	// unless quoted) and returns the index after it.
	expand := func(s string, i int, quoted bool) int {
		var val string
		j := i + 1
		switch {
		case j < len(s) && s[j] == '?':
			val, j = "0", j+1
		case j < len(s) && s[j] == '(':
			depth, k := 1, j+1
			for ; k < len(s) && depth > 0; k++ {
				switch s[k] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			if depth != 0 {
				t.Fatalf("unterminated $( in %q", s)
			}
			inner := s[j+1 : k-1]
			v, ok := scheduleSubst[inner]
			if !ok {
				t.Fatalf("no sample output for $(%s)", inner)
			}
			val, j = v, k
		case j < len(s) && s[j] == '{':
			k := strings.IndexByte(s[j:], '}')
			if k < 0 {
				t.Fatalf("unterminated ${ in %q", s)
			}
			name := s[j+1 : j+k]
			val, j = sh.lookup(name), j+k+1
		default:
			k := j
			for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || k > j && s[k] >= '0' && s[k] <= '9') {
				k++
			}
			if k == j {
				cur.WriteByte('$')
				inWord = true
				return j
			}
			val, j = sh.lookup(s[j:k]), k
		}
		if quoted {
			cur.WriteString(val)
			inWord = true
			return j
		}
		for n, f := range strings.Fields(val) {
			if n > 0 {
				endWord()
			}
			cur.WriteString(f)
			inWord = true
		}
		return j
	}
	s := line
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			endWord()
			i++
		case c == '\\':
			if i+1 < len(s) {
				cur.WriteByte(s[i+1])
				inWord = true
			}
			i += 2
		case c == '\'':
			k := strings.IndexByte(s[i+1:], '\'')
			if k < 0 {
				t.Fatalf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+k])
			inWord = true
			i += k + 2
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch {
				case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
					cur.WriteByte(s[i+1])
					i++
				case s[i] == '$':
					i = expand(s, i, true) - 1
				default:
					cur.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				t.Fatalf("unterminated \" in %q", s)
			}
			i++
		case c == '$':
			i = expand(s, i, false)
		case c == ';' || c == '|' || c == '&':
			endCmd()
			i++
			if i < len(s) && (s[i] == '&' || s[i] == '|') {
				i++
			}
		case c == '>' || c == '<':
			// A redirection: drop an fd number before it, the operator and
			// its target.
			if inWord && strings.Trim(cur.String(), "0123456789") == "" {
				cur.Reset()
				inWord = false
			}
			endWord()
			i++
			if i < len(s) && s[i] == '>' {
				i++
			}
			if i < len(s) && s[i] == '&' {
				i++
			}
			for i < len(s) && s[i] == ' ' {
				i++
			}
			for i < len(s) && strings.IndexByte(" \t;&|<>", s[i]) < 0 {
				i++
			}
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCmd()
	return cmds
}

func (sh *scheduleShell) lookup(name string) string {
	v, ok := sh.vars[name]
	if !ok {
		sh.t.Errorf("$%s is not set (not in the environment file)", name)
	}
	return v
}

// builtins runs what the shell itself does with words and returns the
// command left to run, if any.
func (sh *scheduleShell) builtins(words []string) []string {
	for len(words) > 0 && scheduleEnvAssign.MatchString(words[0]) {
		k, v, _ := strings.Cut(words[0], "=")
		sh.vars[k] = v
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	switch words[0] {
	case ".":
		if len(words) != 2 {
			sh.t.Fatalf(". takes one file: %q", words)
		}
		name, ok := scheduleSourced[words[1]]
		if !ok {
			sh.t.Fatalf("sources %s: no file of scripts/schedule is installed there", words[1])
		}
		for k, v := range scheduleEnvFile(sh.t, scheduleRead(sh.t, name)) {
			sh.vars[k] = v
		}
		return nil
	case "exec":
		return words[1:]
	}
	return words
}

// scheduleEnvFile reads KEY=value lines as both systemd's EnvironmentFile=
// and sh's "." read them alike: no export, values plain or double-quoted.
func scheduleEnvFile(t *testing.T, text string) map[string]string {
	t.Helper()
	vars := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !scheduleEnvAssign.MatchString(line) {
			t.Fatalf("environment file line %d: want KEY=value, got %q", i+1, line)
		}
		if strings.ContainsAny(v, "$`\\'") {
			t.Errorf("environment file line %d: %q: systemd and sh would read $, `, \\ or ' differently", i+1, line)
		}
		if strings.HasPrefix(v, `"`) {
			if len(v) < 2 || !strings.HasSuffix(v, `"`) || strings.Contains(v[1:len(v)-1], `"`) {
				t.Fatalf("environment file line %d: bad quotes: %q", i+1, line)
			}
			v = v[1 : len(v)-1]
		} else if strings.ContainsAny(v, " \t") {
			t.Errorf("environment file line %d: a value with spaces must be double-quoted: %q", i+1, line)
		}
		vars[k] = v
	}
	return vars
}

func TestScheduleShellReader(t *testing.T) {
	sh := scheduleShell{t: t, vars: map[string]string{"A": "x y", "B": "z"}}
	got := sh.run(`C=1 cmd "$A" $A '$A' "${B}w" --d="$(date -u +%F)" \$B 2>&1 >>/log; rc=$?; exec next "$rc" && last $B<in|pipe`)
	want := [][]string{
		{"cmd", "x y", "x", "y", "$A", "zw", "--d=2026-11-24", "$B"},
		{"next", "0"},
		{"last", "z"},
		{"pipe"},
	}
	if !scheduleEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func scheduleEqual(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") || len(a[i]) != len(b[i]) {
			return false
		}
	}
	return true
}

// --- systemd ---

// scheduleUnit is a unit file: section → key → values in order.
type scheduleUnit map[string]map[string][]string

func (u scheduleUnit) get(section, key string) string {
	v := u[section][key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// scheduleParseUnit reads a unit file as systemd does: comments, sections,
// Key=Value, a trailing backslash joining the next line (with a space),
// an empty value resetting the key's list.
func scheduleParseUnit(t *testing.T, text string) scheduleUnit {
	t.Helper()
	u := scheduleUnit{}
	section := ""
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + " " + lines[i]
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			if u[section] == nil {
				u[section] = map[string][]string{}
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section == "" {
			t.Fatalf("unit line %d: want Key=Value in a section: %q", i+1, line)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if v == "" {
			delete(u[section], k)
			continue
		}
		u[section][k] = append(u[section][k], v)
	}
	return u
}

// scheduleSystemdWords splits a command line as ExecStart= does: quotes
// and backslashes, then the escapes "%%" and "$$". A bare "%x" (a
// specifier) or "$NAME" (systemd's own expansion) fails the test: the
// service leaves both to the shell.
func scheduleSystemdWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
			}
			cur.Reset()
			inWord = false
		case c == '\'' || c == '"':
			k := strings.IndexByte(s[i+1:], c)
			if k < 0 {
				t.Fatalf("unterminated %c in %q", c, s)
			}
			cur.WriteString(s[i+1 : i+1+k])
			inWord = true
			i += k + 1
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			inWord = true
			i++
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	for n, w := range words {
		var b strings.Builder
		for i := 0; i < len(w); i++ {
			if (w[i] == '%' || w[i] == '$') && i+1 < len(w) && w[i+1] == w[i] {
				b.WriteByte(w[i])
				i++
				continue
			}
			if w[i] == '%' || w[i] == '$' && i+1 < len(w) && (w[i+1] == '{' || w[i+1] == '_' || w[i+1] >= 'A' && w[i+1] <= 'Z' || w[i+1] >= 'a' && w[i+1] <= 'z') {
				t.Errorf("ExecStart word %q: systemd expands the unescaped %c itself", w, w[i])
			}
			b.WriteByte(w[i])
		}
		words[n] = b.String()
	}
	return words
}

func scheduleServiceCommands(t *testing.T, text string) [][]string {
	u := scheduleParseUnit(t, text)
	exe := u["Service"]["ExecStart"]
	if len(exe) != 1 {
		t.Fatalf("want one ExecStart=, got %q", exe)
	}
	words := scheduleSystemdWords(t, exe[0])
	if len(words) != 3 || words[0] != "/bin/sh" || words[1] != "-c" {
		t.Fatalf("ExecStart= %q: want /bin/sh -c SCRIPT", words)
	}
	files := u["Service"]["EnvironmentFile"]
	if len(files) != 1 {
		t.Fatalf("want one EnvironmentFile=, got %q", files)
	}
	name, ok := scheduleSourced[files[0]]
	if !ok {
		t.Fatalf("EnvironmentFile=%s: no file of scripts/schedule is installed there", files[0])
	}
	sh := scheduleShell{t: t, vars: scheduleEnvFile(t, scheduleRead(t, name))}
	for _, e := range u["Service"]["Environment"] {
		k, v, _ := strings.Cut(e, "=")
		sh.vars[k] = v
	}
	cmds := sh.run(words[2])
	if len(cmds) != 1 {
		t.Errorf("the script runs %d commands, want one (exec mtune, so that systemd sees its exit status)", len(cmds))
	}
	if !strings.HasPrefix(strings.TrimSpace(words[2]), "exec ") {
		t.Error("the script does not exec mtune")
	}
	return cmds
}

func TestScheduleSystemdUnits(t *testing.T) {
	svc := scheduleParseUnit(t, scheduleRead(t, "mtune-retrain.service"))
	tim := scheduleParseUnit(t, scheduleRead(t, "mtune-retrain.timer"))
	want := []struct {
		u                 scheduleUnit
		section, key, val string
	}{
		{svc, "Service", "Type", "oneshot"},
		{svc, "Service", "Restart", "on-failure"},
		{svc, "Service", "RestartSec", "10min"},
		{tim, "Timer", "OnCalendar", "*-*-* 02:30:00 UTC"},
		{tim, "Timer", "Persistent", "true"},
		{tim, "Timer", "Unit", "mtune-retrain.service"},
		{tim, "Install", "WantedBy", "timers.target"},
	}
	for _, w := range want {
		if got := w.u.get(w.section, w.key); got != w.val {
			t.Errorf("[%s] %s=%q, want %q", w.section, w.key, got, w.val)
		}
	}
	if tim.get("Timer", "RandomizedDelaySec") == "" {
		t.Error("no RandomizedDelaySec=")
	}
	// Restart=on-failure restarts on 75; 1 (failed), 2 (usage) and 143
	// (stopped by SIGTERM: TimeoutStartSec=) must not be retried.
	prevent := map[string]bool{}
	for _, v := range svc["Service"]["RestartPreventExitStatus"] {
		for _, f := range strings.Fields(v) {
			prevent[f] = true
		}
	}
	if !prevent["1"] || !prevent["2"] || !prevent[strconv.Itoa(exitStopped)] || prevent["75"] {
		t.Errorf("RestartPreventExitStatus=%q: want 1, 2 and %d, not 75", svc["Service"]["RestartPreventExitStatus"], exitStopped)
	}
	if svc.get("Service", "RestartForceExitStatus") != "" {
		t.Error("RestartForceExitStatus= on a oneshot unit: systemd before 256 refuses to load it")
	}
	if svc.get("Unit", "StartLimitBurst") == "" || svc.get("Unit", "StartLimitIntervalSec") == "" {
		t.Error("no StartLimitBurst=/StartLimitIntervalSec= in [Unit]: the retries on 75 are unbounded")
	}
	if svc.get("Service", "TimeoutStartSec") == "" {
		t.Error("no TimeoutStartSec=: a oneshot unit waits for ever by default")
	}

	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze: the units' syntax is checked above only")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh, the service's ExecStart binary: systemd-analyze verify would refuse the unit")
	}
	dir := t.TempDir()
	for _, f := range []string{"mtune-retrain.service", "mtune-retrain.timer"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(scheduleRead(t, f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(sa, "verify", "--man=no", filepath.Join(dir, "mtune-retrain.service"), filepath.Join(dir, "mtune-retrain.timer"))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	} else {
		t.Logf("systemd-analyze verify passed%s", strings.TrimRight("\n"+string(out), "\n"))
	}
	out, err = exec.Command(sa, "calendar", tim.get("Timer", "OnCalendar")).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("Normalized form: *-*-* 02:30:00 UTC")) {
		t.Errorf("systemd-analyze calendar: %v\n%s", err, out)
	}
}

// --- Kubernetes and Cloud Run ---

type scheduleContainer struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
}

type schedulePodFailureRule struct {
	Action      string `yaml:"action"`
	OnExitCodes *struct {
		ContainerName string `yaml:"containerName"`
		Operator      string `yaml:"operator"`
		Values        []int  `yaml:"values"`
	} `yaml:"onExitCodes"`
	OnPodConditions []struct {
		Type string `yaml:"type"`
	} `yaml:"onPodConditions"`
}

type scheduleCronJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		Schedule                string `yaml:"schedule"`
		TimeZone                string `yaml:"timeZone"`
		ConcurrencyPolicy       string `yaml:"concurrencyPolicy"`
		StartingDeadlineSeconds int    `yaml:"startingDeadlineSeconds"`
		JobTemplate             struct {
			Spec struct {
				BackoffLimit          *int `yaml:"backoffLimit"`
				ActiveDeadlineSeconds int  `yaml:"activeDeadlineSeconds"`
				PodFailurePolicy      *struct {
					Rules []schedulePodFailureRule `yaml:"rules"`
				} `yaml:"podFailurePolicy"`
				Template struct {
					Spec struct {
						RestartPolicy string              `yaml:"restartPolicy"`
						Containers    []scheduleContainer `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
	} `yaml:"spec"`
}

func scheduleParseCronJob(t *testing.T, text string) scheduleCronJob {
	t.Helper()
	return scheduleParseYAML[scheduleCronJob](t, "cronjob.yaml", text, "batch/v1", "CronJob")
}

// kubeObject is a parsed Kubernetes-style object: its kind and how many
// containers its pod template has.
type kubeObject interface {
	header() (apiVersion, kind string)
	containers() int
}

func (cj scheduleCronJob) header() (string, string) { return cj.APIVersion, cj.Kind }
func (cj scheduleCronJob) containers() int {
	return len(cj.Spec.JobTemplate.Spec.Template.Spec.Containers)
}

// scheduleParseYAML parses the YAML text of file name into T and checks
// its apiVersion and kind, and that its pod has one container.
func scheduleParseYAML[T kubeObject](t *testing.T, name, text, apiVersion, kind string) T {
	t.Helper()
	var o T
	if err := yaml.Unmarshal([]byte(text), &o); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if v, k := o.header(); v != apiVersion || k != kind {
		t.Fatalf("%s: %s %s, want %s %s", name, v, k, apiVersion, kind)
	}
	if n := o.containers(); n != 1 {
		t.Fatalf("%s: %d containers, want one", name, n)
	}
	return o
}

// scheduleKubeExpand expands $(NAME) as Kubernetes (and Cloud Run) do in
// a container's command and args: from the container's env; $$ is a $; an
// unknown name stays as written.
func scheduleKubeExpand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' && i+1 < len(s) {
			if s[i+1] == '$' {
				b.WriteByte('$')
				i++
				continue
			}
			if s[i+1] == '(' {
				if k := strings.IndexByte(s[i+2:], ')'); k >= 0 {
					if v, ok := env[s[i+2:i+2+k]]; ok {
						b.WriteString(v)
						i += k + 2
						continue
					}
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// scheduleArgv is a container's command line: its command (the image's
// ENTRYPOINT if none) and args, expanded.
func scheduleArgv(t *testing.T, c scheduleContainer, entry []string) []string {
	t.Helper()
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			v, ok := scheduleFieldRefs[e.ValueFrom.FieldRef.FieldPath]
			if !ok {
				t.Fatalf("env %s: no sample value for field %s", e.Name, e.ValueFrom.FieldRef.FieldPath)
			}
			env[e.Name] = v
		case e.ValueFrom != nil:
			t.Fatalf("env %s: no sample value for its source", e.Name)
		default:
			env[e.Name] = scheduleKubeExpand(e.Value, env)
		}
	}
	argv := append([]string(nil), entry...)
	if len(c.Command) > 0 {
		argv = nil
		for _, a := range c.Command {
			argv = append(argv, scheduleKubeExpand(a, env))
		}
	}
	for _, a := range c.Args {
		argv = append(argv, scheduleKubeExpand(a, env))
	}
	return argv
}

func scheduleCronJobArgv(t *testing.T, text string, entry []string) []string {
	cj := scheduleParseCronJob(t, text)
	return scheduleArgv(t, cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0], entry)
}

// schedulePodFailureAction is what a Job's pod failure policy does with a
// container's exit status: the first matching rule's action, else "Count"
// (the back-off limit).
func schedulePodFailureAction(rules []schedulePodFailureRule, container string, code int) string {
	for _, r := range rules {
		oc := r.OnExitCodes
		if oc == nil || oc.ContainerName != "" && oc.ContainerName != container {
			continue
		}
		in := false
		for _, v := range oc.Values {
			in = in || v == code
		}
		if in == (oc.Operator == "In") {
			return r.Action
		}
	}
	return "Count"
}

func TestScheduleCronJob(t *testing.T) {
	cj := scheduleParseCronJob(t, scheduleRead(t, "cronjob.yaml"))
	s := cj.Spec
	if err := scheduleCronSchedule(s.Schedule); err != nil {
		t.Error(err)
	}
	if s.Schedule != "30 2 * * *" || s.TimeZone != "Etc/UTC" {
		t.Errorf("schedule %q in %q, want 30 2 * * * in Etc/UTC", s.Schedule, s.TimeZone)
	}
	if s.ConcurrencyPolicy != "Forbid" {
		t.Errorf("concurrencyPolicy %q, want Forbid", s.ConcurrencyPolicy)
	}
	if s.StartingDeadlineSeconds <= 0 {
		t.Error("no startingDeadlineSeconds")
	}
	js := s.JobTemplate.Spec
	if js.BackoffLimit == nil || *js.BackoffLimit < 1 {
		t.Error("backoffLimit: want at least one retry for exit status 75")
	}
	if js.ActiveDeadlineSeconds <= 0 {
		t.Error("no activeDeadlineSeconds: a hung night would hold the CronJob (Forbid) for ever")
	}
	if js.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q: the API server accepts a podFailurePolicy with Never only", js.Template.Spec.RestartPolicy)
	}
	if js.PodFailurePolicy == nil {
		t.Fatal("no podFailurePolicy")
	}
	rules := js.PodFailurePolicy.Rules
	name := js.Template.Spec.Containers[0].Name
	for code, want := range map[int]string{1: "FailJob", 2: "FailJob", 75: "Count", exitStopped: "Count"} {
		if got := schedulePodFailureAction(rules, name, code); got != want {
			t.Errorf("exit status %d: %s, want %s", code, got, want)
		}
	}
	disruption := false
	for _, r := range rules {
		for _, c := range r.OnPodConditions {
			disruption = disruption || c.Type == "DisruptionTarget" && r.Action == "Ignore"
		}
		if r.OnExitCodes != nil && r.OnExitCodes.ContainerName != "" && r.OnExitCodes.ContainerName != name {
			t.Errorf("rule for container %q: the container is %q", r.OnExitCodes.ContainerName, name)
		}
	}
	if !disruption {
		t.Error("no Ignore rule for DisruptionTarget: an evicted pod would count as a failure")
	}
	if rules[0].OnPodConditions == nil {
		t.Error("the DisruptionTarget rule should come first: an evicted mtune exits 143 (stopped), and a rule for its exit status would take it")
	}
}

type scheduleCloudRunJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Template struct {
			Spec struct {
				TaskCount   int `yaml:"taskCount"`
				Parallelism int `yaml:"parallelism"`
				Template    struct {
					Spec struct {
						MaxRetries     *int                `yaml:"maxRetries"`
						TimeoutSeconds string              `yaml:"timeoutSeconds"`
						Containers     []scheduleContainer `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func scheduleParseCloudRun(t *testing.T, text string) scheduleCloudRunJob {
	t.Helper()
	return scheduleParseYAML[scheduleCloudRunJob](t, "cloudrun-job.yaml", text, "run.googleapis.com/v1", "Job")
}

func (j scheduleCloudRunJob) header() (string, string) { return j.APIVersion, j.Kind }
func (j scheduleCloudRunJob) containers() int {
	return len(j.Spec.Template.Spec.Template.Spec.Containers)
}

func scheduleCloudRunArgv(t *testing.T, text string, entry []string) []string {
	j := scheduleParseCloudRun(t, text)
	return scheduleArgv(t, j.Spec.Template.Spec.Template.Spec.Containers[0], entry)
}

func TestScheduleCloudRun(t *testing.T) {
	j := scheduleParseCloudRun(t, scheduleRead(t, "cloudrun-job.yaml"))
	es := j.Spec.Template.Spec
	if es.TaskCount != 1 {
		t.Errorf("taskCount %d, want 1: one driver per night", es.TaskCount)
	}
	ts := es.Template.Spec
	if ts.MaxRetries == nil {
		t.Error("no maxRetries (Cloud Run's default is 3)")
	}
	if n, err := strconv.Atoi(ts.TimeoutSeconds); err != nil || n < 3600 {
		t.Errorf("timeoutSeconds %q: want the night's length (the default is 10 minutes)", ts.TimeoutSeconds)
	}

	sh := scheduleRead(t, "cloud-scheduler.sh")
	for _, want := range []string{
		"gcloud run jobs replace",
		`--uri "https://run.googleapis.com/v2/projects/$PROJECT/locations/$REGION/jobs/$JOB:run"`,
		"--http-method POST",
		"--oauth-service-account-email",
		`--schedule "30 2 * * *" --time-zone Etc/UTC`,
		"JOB=" + j.Metadata.Name + "\n",
	} {
		if !strings.Contains(sh, want) {
			t.Errorf("cloud-scheduler.sh lacks %q", want)
		}
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		if out, err := exec.Command(bash, "-n", filepath.Join(scheduleDir, "cloud-scheduler.sh")).CombinedOutput(); err != nil {
			t.Errorf("bash -n cloud-scheduler.sh: %v\n%s", err, out)
		}
	}
}

// --- Dockerfile ---

type scheduleStage struct {
	image, name string
	entrypoint  []string
	cmd         []string
	runs        []string
	copies      []string
}

// scheduleDockerfile reads the Dockerfile's stages: FROM (with its flags
// and AS), ENTRYPOINT and CMD (exec form), RUN and COPY, after joining
// continued lines and dropping comments.
func scheduleDockerfile(t *testing.T) []scheduleStage {
	t.Helper()
	var stages []scheduleStage
	var logical []string
	var cur string
	for _, line := range strings.Split(scheduleRead(t, "Dockerfile"), "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "#") {
			continue
		}
		if strings.HasSuffix(trim, `\`) {
			cur += strings.TrimSuffix(trim, `\`) + " "
			continue
		}
		cur += trim
		if strings.TrimSpace(cur) != "" {
			logical = append(logical, cur)
		}
		cur = ""
	}
	for _, l := range logical {
		instr, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "FROM":
			var st scheduleStage
			f := strings.Fields(rest)
			for len(f) > 0 && strings.HasPrefix(f[0], "--") {
				f = f[1:]
			}
			if len(f) == 0 {
				t.Fatalf("FROM without an image: %q", l)
			}
			st.image = f[0]
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			} else if len(f) != 1 {
				t.Fatalf("bad FROM: %q", l)
			}
			stages = append(stages, st)
		case "ENTRYPOINT", "CMD":
			var v []string
			if err := json.Unmarshal([]byte(rest), &v); err != nil {
				t.Errorf("%s %s: want the exec form (a JSON array): distroless has no shell, and mtune must get the signals itself", instr, rest)
			}
			if len(stages) == 0 {
				t.Fatalf("%s before FROM", instr)
			}
			if strings.ToUpper(instr) == "CMD" {
				stages[len(stages)-1].cmd = v
			} else {
				stages[len(stages)-1].entrypoint = v
			}
		case "RUN":
			stages[len(stages)-1].runs = append(stages[len(stages)-1].runs, rest)
		case "COPY":
			stages[len(stages)-1].copies = append(stages[len(stages)-1].copies, rest)
		}
	}
	if len(stages) < 2 {
		t.Fatalf("Dockerfile: %d stages, want a build stage and a final one", len(stages))
	}
	return stages
}

// scheduleEntrypoint is the final image's ENTRYPOINT.
func scheduleEntrypoint(t *testing.T) []string {
	t.Helper()
	stages := scheduleDockerfile(t)
	e := stages[len(stages)-1].entrypoint
	if len(e) == 0 {
		t.Fatal("Dockerfile: the final stage has no ENTRYPOINT")
	}
	return e
}

// scheduleImageTag splits an image reference into its name and tag (or
// digest).
func scheduleImageTag(ref string) (name, tag string) {
	if n, d, ok := strings.Cut(ref, "@"); ok {
		return n, "@" + d
	}
	slash := strings.LastIndexByte(ref, '/')
	if colon := strings.LastIndexByte(ref, ':'); colon > slash {
		return ref[:colon], ref[colon+1:]
	}
	return ref, ""
}

func TestScheduleDockerfile(t *testing.T) {
	stages := scheduleDockerfile(t)
	names := map[string]bool{}
	for _, st := range stages {
		if names[st.image] {
			names[st.name] = true
			continue // an earlier stage
		}
		name, tag := scheduleImageTag(st.image)
		if tag == "" || tag == "latest" {
			t.Errorf("FROM %s: pin a tag or digest, not latest", st.image)
		}
		if name == "golang" || strings.HasSuffix(name, "/golang") {
			scheduleCheckGoImage(t, tag)
		}
		names[st.name] = true
	}
	final := stages[len(stages)-1]
	if name, tag := scheduleImageTag(final.image); name != "gcr.io/distroless/static-debian12" || tag != "nonroot" {
		t.Errorf("final stage FROM %s, want gcr.io/distroless/static-debian12:nonroot", final.image)
	}
	if strings.Join(final.entrypoint, " ") != "/mtune" {
		t.Errorf("ENTRYPOINT %q, want [\"/mtune\"]", final.entrypoint)
	}
	copied := false
	for _, c := range final.copies {
		f := strings.Fields(c)
		copied = copied || len(f) >= 3 && strings.HasPrefix(f[0], "--from=") && f[len(f)-1] == "/mtune"
	}
	if !copied {
		t.Error("the final stage does not copy the built binary to /mtune")
	}
	built := false
	for _, st := range stages[:len(stages)-1] {
		for _, r := range st.runs {
			if strings.Contains(r, "go build") {
				built = true
				for _, want := range []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "-trimpath", "-ldflags='-s -w'", "./cmd/mtune"} {
					if !strings.Contains(r, want) {
						t.Errorf("the go build lacks %s (a static linux/amd64 binary, the Dataflow worker's too): %s", want, r)
					}
				}
			}
		}
	}
	if !built {
		t.Error("no go build in the build stage")
	}
	if len(final.cmd) > 0 {
		// A default command line must parse too.
		if final.cmd[0] != "retrain" {
			t.Errorf("CMD %q: want a retrain command line, or none", final.cmd)
		} else {
			scheduleParseRetrain(t, final.cmd[1:])
		}
	}
}

// scheduleCheckGoImage checks a golang image tag against go.mod's go
// directive: the same minor version, at or after its patch release (else
// the build would fetch another toolchain).
func scheduleCheckGoImage(t *testing.T, tag string) {
	t.Helper()
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)(?:\.(\d+))?\s*$`).FindStringSubmatch(string(gomod))
	if m == nil {
		t.Fatal("go.mod: no go directive")
	}
	v := regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(-.*)?$`).FindStringSubmatch(tag)
	if v == nil {
		t.Fatalf("golang:%s: want a full version, MAJOR.MINOR.PATCH", tag)
	}
	if v[1] != m[1] || v[2] != m[2] {
		t.Errorf("golang:%s, but go.mod says go %s.%s", tag, m[1], m[2])
	}
	modPatch, _ := strconv.Atoi(m[3])
	imgPatch, _ := strconv.Atoi(v[3])
	if imgPatch < modPatch {
		t.Errorf("golang:%s is older than go.mod's go %s.%s.%s", tag, m[1], m[2], m[3])
	}
}

// TestScheduleReadme: the README names every file of the folder.
func TestScheduleReadme(t *testing.T) {
	readme := scheduleRead(t, "README.md")
	entries, err := os.ReadDir(scheduleDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); n != "README.md" && !strings.Contains(readme, "`"+n+"`") {
			t.Errorf("README.md does not mention %s", n)
		}
	}
	for _, want := range []string{"mtune registry rollback --registry R", "--to ID", "Flex Template", "| 75 |", "| 1 |", "| 143 |"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}
