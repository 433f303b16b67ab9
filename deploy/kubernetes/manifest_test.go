// Package kubernetes_test checks the Kubernetes manifests shipped in this
// directory: they decode strictly into the Job fields they use, and their
// command lines are rlbench command lines.
package kubernetes_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// readJob decodes a manifest strictly: a misspelt or misplaced field is an
// error, not silence.
func readJob(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("%s: %s %s, want a batch/v1 Job", path, job.APIVersion, job.Kind)
	}
	return &job
}

// env is a container's literal environment, and its downward-API fields.
func env(c corev1.Container) (values, fields map[string]string) {
	values, fields = map[string]string{}, map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			fields[e.Name] = e.ValueFrom.FieldRef.FieldPath
		default:
			values[e.Name] = e.Value
		}
	}
	return values, fields
}

// expand replaces $(NAME) as Kubernetes does in a command.
func expand(args []string, vars map[string]string) []string {
	re := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = re.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := vars[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
	}
	return out
}

// rlbenchFlags lists the flags a subcommand takes, and which take a value,
// from its own help.
func rlbenchFlags(t *testing.T, cmd string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "run", "../../cmd/rlbench", "help", cmd).Output()
	if err != nil {
		t.Fatalf("rlbench help %s: %v", cmd, err)
	}
	flags := map[string]bool{}
	re := regexp.MustCompile(`^\s+-([a-z][a-z0-9-]*)(\s+\S+)?`)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			flags[m[1]] = m[2] != ""
		}
	}
	if len(flags) == 0 {
		t.Fatalf("rlbench help %s lists no flags:\n%s", cmd, out)
	}
	return flags
}

// checkCommandLine checks args are `rlbench CMD` with known flags, each
// given a value when it takes one, and returns the positional arguments.
func checkCommandLine(t *testing.T, args []string, cmd string) []string {
	t.Helper()
	if len(args) < 2 || args[0] != "rlbench" || args[1] != cmd {
		t.Fatalf("command %q is not rlbench %s", args, cmd)
	}
	known := rlbenchFlags(t, cmd)
	var positional []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		takesValue, ok := known[name]
		switch {
		case !ok:
			t.Errorf("rlbench %s has no flag %s (it has %v)", cmd, a, known)
		case takesValue:
			i++
			if i >= len(args) {
				t.Errorf("%s lacks its value", a)
			}
		}
	}
	return positional
}

func TestSegmentJob(t *testing.T) {
	job := readJob(t, "rlbench-job.yaml")
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil {
		t.Fatalf("want an Indexed Job with completions and parallelism: %+v", s)
	}
	if *s.Parallelism != *s.Completions {
		t.Errorf("parallelism %d, completions %d: every segment must run at once", *s.Parallelism, *s.Completions)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("pod: restart %s, %d containers", s.Template.Spec.RestartPolicy, len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	values, fields := env(c)
	if fields["JOB_COMPLETION_INDEX"] != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("JOB_COMPLETION_INDEX comes from %q", fields["JOB_COMPLETION_INDEX"])
	}
	if n, err := strconv.Atoi(values["SEGMENTS"]); err != nil || int32(n) != *s.Completions {
		t.Errorf("SEGMENTS %q, completions %d: they must agree", values["SEGMENTS"], *s.Completions)
	}
	if _, err := time.Parse(time.RFC3339, values["RLBENCH_START_AT"]); err != nil {
		t.Errorf("RLBENCH_START_AT %q: %v", values["RLBENCH_START_AT"], err)
	}
	vars := map[string]string{"JOB_COMPLETION_INDEX": "2", "SEGMENTS": values["SEGMENTS"]}
	args := expand(append(slices.Clone(c.Command), c.Args...), vars)
	positional := checkCommandLine(t, args, "run")
	if i := slices.Index(args, "--segment"); i < 0 || args[i+1] != "2/"+values["SEGMENTS"] {
		t.Errorf("pod 2 runs %q: want --segment 2/%s", args, values["SEGMENTS"])
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if len(positional) != 1 || !strings.HasPrefix(positional[0], mounts["profile"]+"/") {
		t.Errorf("profile argument %q is not under the profile volume %q", positional, mounts["profile"])
	}
	if i := slices.Index(args, "--out"); i < 0 || args[i+1] != mounts["results"] {
		t.Errorf("--out is not the shared results volume %q: %q", mounts["results"], args)
	}
}

func TestMergeJob(t *testing.T) {
	job := readJob(t, "rlbench-merge-job.yaml")
	c := job.Spec.Template.Spec.Containers[0]
	if len(c.Command) != 3 || c.Command[0] != "sh" || c.Command[1] != "-c" || !strings.HasPrefix(c.Command[2], "exec ") {
		t.Fatalf("merge command %q: want sh -c 'exec rlbench merge ...'", c.Command)
	}
	args := strings.Fields(strings.TrimPrefix(c.Command[2], "exec "))
	positional := checkCommandLine(t, args, "merge")
	if len(positional) != 1 || !strings.HasSuffix(positional[0], "-segment*/result.json") {
		t.Errorf("merge reads %q: want the segments' result.json files (rlbench run --segment names their directories <profile>-<time>-segment<I>of<N>)", positional)
	}
}
