package trace

import (
	"os"
	"strings"
	"testing"
	"time"
)

// The export examples docs/traces.md gives read what they claim to: each
// row holds text the page must show word for word, and a line in the
// format it describes.
func TestDocsExportExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/traces.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		shown []string
		spec  Spec
		file  string
		line  string
		want  Arrival
		at    time.Time
	}{
		{
			name: "nginx, a log_format of JSON",
			shown: []string{`log_format rlbench escape=json '{"time":$msec,"ip":"$remote_addr","user":"$remote_user","key":"$http_x_api_key","path":"$uri"}';`,
				`trace: {file: rlbench.jsonl.gz, identity: key}`},
			spec: Spec{Identity: "key"}, file: "rlbench.jsonl.gz",
			line: `{"time":1700000000.123,"ip":"203.0.113.7","user":"","key":"k-42","path":"/api/items"}`,
			at:   time.Unix(1700000000, 123e6),
		},
		{
			name:  "nginx or Apache, the combined format",
			shown: []string{`trace: access.log.gz`},
			file:  "access.log.gz",
			line:  `203.0.113.7 - alice [14/Nov/2023:22:13:20 +0000] "GET /api/items?page=2 HTTP/1.1" 200 512 "-" "curl/8.5.0"`,
			at:    time.Unix(1700000000, 0),
		},
		{
			name: "an AWS Application Load Balancer's log",
			shown: []string{`regex: '^\S+ (?P<time>\S+) \S+ (?P<client>[^ :]+):\d+ '`, `identity: client`,
				`zcat AWSLogs/*/elasticloadbalancing/*/*/*/*/*.log.gz | sort -k2,2 | gzip > alb.log.gz`},
			spec: Spec{Format: Regex, Regex: `^\S+ (?P<time>\S+) \S+ (?P<client>[^ :]+):\d+ `, Identity: "client"}, file: "alb.log.gz",
			line: `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"`,
			at:   time.Date(2018, 7, 2, 22, 23, 0, 186641000, time.UTC),
		},
		{
			name:  "a CSV of your own",
			shown: []string{"time,identity,cost\n1700000000.250,tenant-7,1", `trace: {file: requests.csv, cost: cost}`},
			spec:  Spec{Cost: "cost"}, file: "requests.csv",
			line: "time,identity,cost\n1700000000.250,tenant-7,3",
			at:   time.Unix(1700000000, 250e6), want: Arrival{Units: 3},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range tc.shown {
				if !strings.Contains(string(doc), s) {
					t.Errorf("docs/traces.md does not show %q", s)
				}
			}
			tc.spec.File = writeTrace(t, tc.file, tc.line+"\n")
			sum, got := replayAll(t, tc.spec, Part{}, 1)
			if len(got) != 1 || got[0] != tc.want || !sum.First.Equal(tc.at) {
				t.Errorf("read %+v at %s, want %+v at %s", got, sum.First, tc.want, tc.at)
			}
		})
	}
}
