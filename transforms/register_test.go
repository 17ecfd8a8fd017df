package transforms_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/typex"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/reflectx"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

const ourPkg = "github.com/mtune/mtune/transforms"

var closureName = regexp.MustCompile(`\.func\d+`)

// checkGraph reports what in p's graph breaks the rules for running on
// prism and Dataflow: a closure, an unregistered function, DoFn, CombineFn
// or element type of ours, an unexported field set at construction, or a
// DoFn that does not survive Beam's JSON encoding.
func checkGraph(t *testing.T, p *beam.Pipeline) (problems []string, fns int) {
	t.Helper()
	edges, nodes, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		var fn *graph.Fn
		switch {
		case e.DoFn != nil:
			fn = (*graph.Fn)(e.DoFn)
		case e.CombineFn != nil:
			fn = (*graph.Fn)(e.CombineFn)
		default:
			continue
		}
		if fn.Fn != nil {
			name := fn.Fn.Fn.Name()
			if !strings.HasPrefix(name, ourPkg) {
				continue
			}
			fns++
			if closureName.MatchString(name) {
				problems = append(problems, name+": a closure")
			}
			if strings.Contains(fmt.Sprintf("%T", fn.Fn.Fn), "reflectFunc") {
				problems = append(problems, name+": not registered")
			}
			continue
		}
		v := reflect.ValueOf(fn.Recv)
		typ := reflectx.SkipPtr(v.Type())
		if !strings.HasPrefix(typ.PkgPath(), ourPkg) {
			continue
		}
		fns++
		name := typ.String()
		if key, ok := runtime.TypeKey(typ); !ok {
			problems = append(problems, name+": no type key")
		} else if _, ok := runtime.LookupType(key); !ok {
			problems = append(problems, name+": type not registered")
		}
		if _, ok := reflectx.WrapMethods(fn.Recv); !ok {
			problems = append(problems, name+": methods not registered")
		}
		elem := reflect.Indirect(v)
		for i := 0; i < elem.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() && !elem.Field(i).IsZero() {
				problems = append(problems, name+": unexported field "+f.Name+" set at construction")
			}
		}
		data, err := json.Marshal(fn.Recv)
		back := reflect.New(typ)
		if err == nil {
			err = json.Unmarshal(data, back.Interface())
		}
		if err != nil || !reflect.DeepEqual(back.Elem().Interface(), elem.Interface()) {
			problems = append(problems, fmt.Sprintf("%s: changed by JSON encoding (%v)", name, err))
		}
	}
	for _, n := range nodes {
		var walk func(ft typex.FullType)
		walk = func(ft typex.FullType) {
			if ty := ft.Type(); ty != nil && ty.Kind() == reflect.Struct && strings.HasPrefix(ty.PkgPath(), "github.com/mtune/mtune") {
				key, _ := runtime.TypeKey(ty)
				if _, ok := runtime.LookupType(key); !ok {
					problems = append(problems, ty.String()+": element type not registered")
				}
			}
			for _, c := range ft.Components() {
				walk(c)
			}
		}
		walk(n.Type())
	}
	return problems, fns
}

// everyTransform builds a graph with every composite of the package.
func everyTransform(s beam.Scope) {
	sents := beam.CreateList(s, []tune.Sentence{{ID: 0, Src: "a", Refs: []string{"b"}}})
	w := transforms.ReadWeights(s, "/nonexistent/weights")
	states := transforms.ReadShardStates(s, []string{"/nonexistent/shard-000.json"})
	transforms.Shard(s, sents, 2, 1)
	fn := &transforms.LearnFn{Decoder: "nbest-pool", DecoderConfig: "/nonexistent/nbest", Shards: 2,
		Options: tune.LearnOptions{Algo: "mira", Seed: 5, Epoch: 1}}
	res, lists := transforms.Learn(s, fn, sents, w, states)
	avg := transforms.Average(s, res, true)
	mixed, _ := transforms.LineSearchMix(s, lists, w, avg, "", "/nonexistent/work/lists")
	transforms.WriteTrio(s, mixed, "/nonexistent/out", []string{"LM0_0"})
	transforms.WriteMixReport(s, beam.CreateList(s, []tune.MixReport{{Mixer: "average"}}), "/nonexistent/mix.json")
	transforms.WriteShardStates(s, res, "/nonexistent/shards")
	stale := *fn
	stale.Stale, stale.ReportDir = &tune.StaleOptions{Threads: 3, MaxStaleness: 2}, "/nonexistent/work"
	transforms.Learn(s, &stale, sents, w, states)
	dec := transforms.Decode(s, &transforms.DecodeFn{Decoder: "nbest-pool", DecoderConfig: "x", Options: tune.DecodeOptions{NBest: 5}, Sentences: 1}, sents, w)
	transforms.OneBest(s, dec, w)
	transforms.WriteStats(s, transforms.SumStats(s, beam.CreateList(s, []metric.Stats{okStats()})), "/nonexistent/stats.json")
}

// TestRegistration checks every transform's graph. (Each also runs on prism
// in its own test: TestShardPipeline, TestLearnPipeline, TestEpochPipeline,
// TestDecodeAndBLEU, TestAveragePipeline, TestLineSearchMixPipeline.)
func TestRegistration(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	everyTransform(s)
	problems, fns := checkGraph(t, p)
	for _, pr := range problems {
		t.Error(pr)
	}
	t.Logf("%d functions, DoFns and CombineFns of the package checked", fns)
	if fns < 15 {
		t.Errorf("only %d of the package's functions and DoFns in the graph", fns)
	}
}

// TestRealDecodersRegistered: tune registers the real decoders itself, so
// that every program linking this package (a worker process too: see
// pipelines' TestProcessEnvironment) can open them.
func TestRealDecodersRegistered(t *testing.T) {
	got := tune.Decoders.Names()
	for _, name := range []string{tune.MosesDecoderName, tune.ExternalDecoderName} {
		if !slices.Contains(got, name) {
			t.Errorf("decoder %q is not registered (registered: %q)", name, got)
		}
	}
}

// leakyFn carries configuration in an unexported field, which Beam drops.
type leakyFn struct {
	Name  string
	limit int
}

func (f *leakyFn) ProcessElement(x tune.Sentence) int { return f.limit + x.ID }

// TestCheckGraphCatches makes sure the checker finds what it looks for.
func TestCheckGraphCatches(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	sents := beam.CreateList(s, []tune.Sentence{{ID: 0}})
	offset := 3
	beam.ParDo(s, func(x tune.Sentence) int { return x.ID + offset }, sents)
	beam.ParDo(s, &leakyFn{Name: "x", limit: 4}, sents)
	problems, _ := checkGraph(t, p)
	got := strings.Join(problems, "\n")
	t.Logf("found:\n%s", got)
	for _, want := range []string{"a closure", "func1: not registered", "leakyFn: type not registered", "leakyFn: methods not registered", "unexported field limit"} {
		if !strings.Contains(got, want) {
			t.Errorf("the checker missed %q; it found:\n%s", want, got)
		}
	}
}
