package html

import (
	"fmt"

	"github.com/rlbench/rlbench/report"
)

// sweepSection is one sweep of clock skews on the page: per limiter, the
// most admitted in one window at each skew, and the largest skew it
// tolerates.
type sweepSection struct {
	Name, Describe string
	Skews          []string
	Rows           []sweepRow
}

// sweepRow is one limiter of a sweep.
type sweepRow struct {
	Algorithm, Color, TimeFrom string
	Cells                      []sweepCell
	Bound, Tolerates           string
	// AllHeld says every step held.
	AllHeld bool
}

// sweepCell is one step: the most admitted in one window, Bad when the
// step went past the bound or short of the promise.
type sweepCell struct {
	Text string
	Bad  bool
}

// sweepSections lays out v's sweeps of clock skews for the page.
func sweepSections(v *view) []sweepSection {
	var out []sweepSection
	for _, s := range v.sweeps {
		sec := sweepSection{Name: s.Name, Describe: fmt.Sprintf(
			"Scenario %s ran once per clock skew: the %d application instances' clocks spread evenly over minus to plus each skew. "+
				"Each cell is the most one identity had admitted within any %s, judged on the true clock; a red cell went past the limiter's bound or short of its promise, "+
				"one marked ? could not be judged or could not have shown an excess. "+
				"A limiter takes its time from Redis TIME or from its caller: only the second sees the instances' clocks.",
			s.Name, s.Instances, report.FormatMillis(v.r.Profile.Policy.WindowMs))}
		for _, ms := range s.SkewsMs {
			sec.Skews = append(sec.Skews, report.FormatSkew(ms))
		}
		for _, t := range s.Limiters {
			row := sweepRow{Algorithm: t.Algorithm, Color: hexColor(v.colors.color(t.Algorithm)), TimeFrom: s.TimeFrom[t.Algorithm],
				Tolerates: report.Tolerates(t), AllHeld: t.AllHeld, Bound: dash}
			if len(t.Steps) > 0 && t.Steps[0].Audited {
				row.Bound = report.FormatCount(t.Steps[0].BoundWindow)
			}
			for _, ms := range s.SkewsMs {
				cell := sweepCell{Text: dash}
				for _, step := range t.Steps {
					switch {
					case step.SkewMs != ms:
					case !step.Audited:
						cell = sweepCell{Text: "n/a", Bad: true}
					default:
						mark := report.StepMark(step)
						cell = sweepCell{Text: report.FormatCount(step.MaxWindowAdmitted), Bad: mark == "!"}
						if mark == "?" {
							cell.Text += mark
						}
					}
				}
				row.Cells = append(row.Cells, cell)
			}
			sec.Rows = append(sec.Rows, row)
		}
		out = append(out, sec)
	}
	return out
}
