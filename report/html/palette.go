package html

import (
	"fmt"
	"image/color"
)

// Colours come from the Okabe-Ito palette, which stays distinguishable for
// the common forms of colour blindness. The four classic limiters get hues
// far apart and of different lightness (dark blue, mid vermillion and
// green, light purple), so they also stay apart printed in grey; fixed
// window and leaky bucket are no longer the two oranges. The known limiters
// keep the same colour in every report, so a reader who has seen one report
// can read the next at a glance; other names take the remaining colours in
// order.
var (
	knownColors = map[string]color.RGBA{
		"fixed_window":  {0xD5, 0x5E, 0x00, 0xFF}, // vermillion: the loosest reading of the policy
		"sliding_log":   {0x00, 0x72, 0xB2, 0xFF}, // blue
		"token_bucket":  {0x00, 0x9E, 0x73, 0xFF}, // bluish green
		"leaky_bucket":  {0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
		"naive_counter": {0x56, 0xB4, 0xE9, 0xFF}, // sky blue: the negative control
		// The later limiters: a relative's hue in another lightness, or a
		// deep colour of Paul Tol's palette, also safe for colour blindness.
		"fixed_window_nx":           {0xE6, 0x9F, 0x00, 0xFF}, // orange, beside the fixed window's vermillion
		"fixed_window_nx_pipelined": {0x8C, 0x6D, 0x00, 0xFF}, // dark yellow
		"gcra":                      {0x11, 0x77, 0x33, 0xFF}, // dark green: the token bucket's decisions
		"sliding_buckets":           {0x33, 0x22, 0x88, 0xFF}, // indigo
		"sliding_counter":           {0x88, 0x22, 0x55, 0xFF}, // wine
	}
	// Near black is left out: it draws the policy limit.
	spareColors = []color.RGBA{
		{0xE6, 0x9F, 0x00, 0xFF}, // orange
		{0x8C, 0x6D, 0x00, 0xFF}, // dark yellow
		{0x99, 0x99, 0x99, 0xFF}, // grey
		{0x6A, 0x3D, 0x9A, 0xFF}, // dark purple
	}
)

// palette maps each algorithm of one result to its colour.
type palette map[string]color.RGBA

// newPalette gives every algorithm in algs a colour: the known ones their
// fixed colour, the others the spare colours in the order given, skipping
// those a known algorithm of algs already has (cycling when there are more
// algorithms than colours).
func newPalette(algs []string) palette {
	p := palette{}
	taken := map[color.RGBA]bool{}
	for _, a := range algs {
		if c, ok := knownColors[a]; ok {
			p[a] = c
			taken[c] = true
		}
	}
	var spares []color.RGBA
	for _, c := range spareColors {
		if !taken[c] {
			spares = append(spares, c)
		}
	}
	if len(spares) == 0 {
		spares = spareColors
	}
	spare := 0
	for _, a := range algs {
		if _, ok := p[a]; ok {
			continue
		}
		p[a] = spares[spare%len(spares)]
		spare++
	}
	return p
}

// color is the algorithm's colour; an algorithm the palette was not built
// with is drawn in grey rather than failing.
func (p palette) color(alg string) color.RGBA {
	if c, ok := p[alg]; ok {
		return c
	}
	return spareColors[2]
}

// tint mixes c with white: 0 keeps c, 1 is white. Lighter bands and bound
// boxes use a tint of the algorithm's own colour so they still read as its.
func tint(c color.RGBA, amount float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*amount + 0.5) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xFF}
}

// hexColor renders c for CSS.
func hexColor(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}
