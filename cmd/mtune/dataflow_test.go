package main

import (
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// captureLogger records what Beam logs (the Dataflow runner's dry run
// prints the job through Beam's log package).
type captureLogger struct {
	mu   sync.Mutex
	msgs []string
}

func (c *captureLogger) Log(_ context.Context, _ beamlog.Severity, _ int, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, msg)
}

// restoreBeamFlags resets, when t ends, every flag of flag.CommandLine (Beam's
// --runner, --dry_run, --project, …) that "mtune tune" set during t.
func restoreBeamFlags(t *testing.T) {
	t.Helper()
	saved := map[string]string{}
	flag.CommandLine.VisitAll(func(f *flag.Flag) { saved[f.Name] = f.Value.String() })
	t.Cleanup(func() {
		flag.CommandLine.VisitAll(func(f *flag.Flag) {
			if v := f.Value.String(); v != saved[f.Name] {
				if err := f.Value.Set(saved[f.Name]); err != nil {
					t.Errorf("restoring --%s=%q: %v", f.Name, saved[f.Name], err)
				}
			}
		})
	})
}

// dataflowJob is the part of a Dataflow v1b3 job the test reads. With
// portable job submission (the Go SDK's only mode) the job has no steps:
// the pipeline is the staged model proto (pipelineUrl).
type dataflowJob struct {
	ProjectID   string `json:"projectId"`
	Type        string `json:"type"`
	Environment struct {
		Experiments        []string `json:"experiments"`
		SdkPipelineOptions struct {
			Options struct {
				PipelineURL  string `json:"pipelineUrl"`
				Region       string `json:"region"`
				TempLocation string `json:"tempLocation"`
			} `json:"options"`
		} `json:"sdkPipelineOptions"`
		WorkerPools []struct {
			Packages []struct {
				Location string `json:"location"`
				Name     string `json:"name"`
			} `json:"packages"`
			WorkerHarnessContainerImage string `json:"workerHarnessContainerImage"`
		} `json:"workerPools"`
	} `json:"environment"`
}

// TestTuneDataflowDryRun builds the demo's first epoch as a Dataflow job
// with --dry_run, offline and without credentials
// (GOOGLE_APPLICATION_CREDENTIALS points at a missing file, so the runner's
// bucket soft-delete check fails at once instead of probing the metadata
// server), and checks what the runner prints: the model pipeline (its
// transforms, all in the Go environment) and the v1b3 job (project, region,
// temp and staging locations, container image, portable submission).
func TestTuneDataflowDryRun(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "no-credentials.json"))
	restoreBeamFlags(t)
	logs := &captureLogger{}
	beamlog.SetLogger(logs)
	t.Cleanup(func() { beamlog.SetLogger(&beamlog.Structural{}) })

	out := filepath.Join(t.TempDir(), "run")
	code, stdout, errOut := mtune(t, "", "tune", "--runner", "dataflow", "--dry_run",
		"--project", "mtune-test", "--region", "europe-west1",
		"--temp_location", "gs://mtune-test/tmp", "--staging_location", "gs://mtune-test/staging",
		"--epochs", "1", "--shards", "2", "--eval-tune", "--out", out)
	// pipelines.Run reads the epoch's outputs after the launch, which a dry
	// run does not write: the command ends with an error after the job is
	// printed (see the report); only the printed job is checked here.
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, stdout, errOut)
	if code != 0 || !strings.Contains(errOut, "dry run") {
		t.Fatalf("a dry run must end with exit 0 and say it ran nothing: exit %d, stderr %q", code, errOut)
	}

	var job *dataflowJob
	var model *pipepb.Pipeline
	for _, m := range logs.msgs {
		var j dataflowJob
		if strings.HasPrefix(m, "{") && json.Unmarshal([]byte(m), &j) == nil && j.ProjectID != "" {
			job = &j
		}
		var p pipepb.Pipeline
		if strings.HasPrefix(m, "components") && prototext.Unmarshal([]byte(m), &p) == nil {
			model = &p
		}
	}
	if job == nil || model == nil {
		t.Fatalf("dry run printed no job (%v) or no model (%v); Beam logged %q", job != nil, model != nil, logs.msgs)
	}

	// The model: one launch with the transforms of an ipm epoch with
	// line-search mixing (the demo's default), a dev set and, with
	// --eval-tune, the tuning set decoded again.
	names := map[string]bool{}
	for id, tr := range model.GetComponents().GetTransforms() {
		names[tr.GetUniqueName()] = true
		if tr.GetSpec().GetUrn() == "beam:transform:pardo:v1" && tr.GetEnvironmentId() != "go" {
			t.Errorf("transform %s (%s) runs in environment %q, want go", id, tr.GetUniqueName(), tr.GetEnvironmentId())
		}
	}
	for _, want := range []string{
		"transforms.ReadWeights",
		"transforms.Learn/transforms.Shard/transforms.shardFn",
		"transforms.Learn/transforms.LearnFn",
		"transforms.LineSearchMix/transforms.ListLinesFn",
		"transforms.LineSearchMix/CombinePerKey/transforms.LineSearchFn",
		"transforms.WriteTrio/transforms.writeTrioFn",
		"transforms.Decode/transforms.DecodeFn",   // tune set, 1-best with the mixed weights
		"transforms.Decode'1/transforms.DecodeFn", // dev set
		"transforms.OneBest/transforms.SumStats/CombinePerKey/transforms.SumStatsFn",
		"transforms.WriteStats/transforms.writeJSONFn",
		"transforms.WriteStats'1/transforms.writeJSONFn",
	} {
		if !names[want] {
			t.Errorf("model has no transform %q", want)
		}
	}
	env, ok := model.GetComponents().GetEnvironments()["go"]
	if !ok {
		t.Fatalf("model has no go environment: %v", model.GetComponents().GetEnvironments())
	}
	var docker pipepb.DockerPayload
	if env.GetUrn() != "beam:env:docker:v1" || proto.Unmarshal(env.GetPayload(), &docker) != nil ||
		!strings.Contains(docker.GetContainerImage(), "beam_go_sdk:2.77.0") {
		t.Errorf("go environment %s %q, want the docker image apache/beam_go_sdk:2.77.0", env.GetUrn(), docker.GetContainerImage())
	}

	// The job.
	opts := job.Environment.SdkPipelineOptions.Options
	if job.ProjectID != "mtune-test" || job.Type != "JOB_TYPE_BATCH" || opts.Region != "europe-west1" ||
		opts.TempLocation != "gs://mtune-test/tmp" || !strings.HasPrefix(opts.PipelineURL, "gs://mtune-test/staging/") {
		t.Errorf("job: project %q, type %q, region %q, temp %q, pipeline %q", job.ProjectID, job.Type, opts.Region, opts.TempLocation, opts.PipelineURL)
	}
	if !slices.Contains(job.Environment.Experiments, "use_portable_job_submission") {
		t.Errorf("experiments %q lack use_portable_job_submission", job.Environment.Experiments)
	}
	if len(job.Environment.WorkerPools) != 1 || len(job.Environment.WorkerPools[0].Packages) != 1 ||
		!strings.HasPrefix(job.Environment.WorkerPools[0].Packages[0].Location, "gs://mtune-test/staging/") ||
		!strings.HasSuffix(job.Environment.WorkerPools[0].Packages[0].Location, "/worker") ||
		!strings.Contains(job.Environment.WorkerPools[0].WorkerHarnessContainerImage, "beam_go_sdk:2.77.0") {
		t.Errorf("worker pools %+v: want one, with the worker binary staged under gs://mtune-test/staging/ and the Go SDK image", job.Environment.WorkerPools)
	}
}
