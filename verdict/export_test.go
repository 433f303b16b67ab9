package verdict

// The verdict's own formatters, for the test that holds them to the
// report's.
var (
	FormatCount      = formatCount
	FormatMillis     = formatMillis
	FormatMicros     = formatMicros
	FormatSize       = formatSize
	FormatFieldValue = formatFieldValue
)
