package result_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

func TestWriteFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "result.json")
	want := resulttest.Sample()
	if err := result.WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Runs[0].Requests != want.Runs[0].Requests || got.Profile.Name != "demo" || !got.StartedAt.Equal(want.StartedAt) {
		t.Errorf("round trip changed the result: %+v", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestDecodeSaysWhatIsWrong(t *testing.T) {
	good, err := marshalResult(resulttest.Sample())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why  string
		data string
		want string
	}{
		{"empty", "", "empty file"},
		{"truncated", good[:len(good)/2], "truncated JSON"},
		{"not JSON", "schema: yes", "invalid JSON at line 1"},
		{"another schema", strings.Replace(good, result.Schema, "rlbench.result/v9", 1), `schema "rlbench.result/v9" is not supported`},
		{"no schema", `{"runs": []}`, `no "schema" field`},
		{"wrong type", strings.Replace(good, `"sent": 10`, `"sent": "ten"`, 1), "field runs.requests.sent holds a JSON string"},
		{"unknown field", strings.Replace(good, `"verdict"`, `"verdikt": 1, "verdict"`, 1), `unknown field "verdikt"`},
		{"bad verdict", strings.Replace(good, `"verdict": "pass"`, `"verdict": "maybe"`, 1), `verdict "maybe"`},
	} {
		_, err := result.Decode([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.why, err, tc.want)
		}
	}
}

func marshalResult(r *result.Result) (string, error) {
	path := filepath.Join(os.TempDir(), "rlbench-report-test.json")
	defer os.Remove(path)
	if err := result.WriteFile(path, r); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	return string(b), err
}
