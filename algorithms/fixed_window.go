package algorithms

import _ "embed"

// FixedWindowName is the registry name of FixedWindow.
const FixedWindowName = "fixed_window"

//go:embed fixed_window.lua
var fixedWindowLua string

// FixedWindow counts an identity's requests in a window that opens at its
// first hit and admits the first Limit of them. It is the cheapest limiter
// (one small string per identity) and the loosest: a burst at the end of one
// window and another at the start of the next admit 2 x Limit within a
// window's length.
type FixedWindow struct{ scripted }

var _ Limiter = (*FixedWindow)(nil)

// NewFixedWindow binds the fixed-window script to rdb for policy p.
func NewFixedWindow(rdb Redis, p Policy) *FixedWindow {
	return &FixedWindow{newScripted(FixedWindowName, fixedWindowLua, rdb, p, p.Limit, p.WindowMillis())}
}
