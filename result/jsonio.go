package result

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/rlbench/rlbench/internal/input"
)

// WriteFile writes r as indented JSON to path atomically: a temporary file in
// the same directory, synced, then renamed, so a reader never sees half a
// result.
func WriteFile(path string, r *Result) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// WriteFileAtomic writes data to path through a temporary file and a rename.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadFile reads and checks a result file.
func ReadFile(path string) (*Result, error) {
	return ReadFileContext(context.Background(), path)
}

// MaxResultBytes is the largest result file rlbench reads: a result of
// thousands of runs, each with an hour of per-second series, stays well
// under it, and decoding one this large takes a few hundred megabytes.
const MaxResultBytes = 256 << 20

// ReadFileContext reads and checks a result file of at most MaxResultBytes
// (see input.Open). It decodes as it reads, one run at a time, so the file
// is never held whole beside the result it holds, and ctx ending stops it
// between two runs (or a wait on a pipe).
func ReadFileContext(ctx context.Context, path string) (*Result, error) {
	in, err := input.Open(ctx, path, "a result", MaxResultBytes)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	defer in.Close()
	r, err := decode(ctx, in, rereadFile(path))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var tl *input.TooLargeError
		if errors.As(err, &tl) {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Decode parses a result and says what is wrong with a malformed one:
// truncated JSON, unknown fields, another schema, missing parts, or a
// count or figure no run can have measured (see validate).
func Decode(data []byte) (*Result, error) {
	return decode(context.Background(), bytes.NewReader(data), func(from int64) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data[min(from, int64(len(data))):])), nil
	})
}

// rereader reads the input again from a byte offset on, to say where an
// error is; nil when the input cannot be read again (a pipe).
type rereader func(from int64) (io.ReadCloser, error)

// decode reads a result from in: the top-level object field by field, and
// its runs one at a time, each through a decoder that refuses unknown
// fields, so that what is held at once is the result and one run's JSON.
func decode(ctx context.Context, in io.Reader, again rereader) (*Result, error) {
	cr := &countingReader{r: in}
	d := &streamDecoder{ctx: ctx, dec: json.NewDecoder(cr), in: cr, again: again}
	d.dec.DisallowUnknownFields()
	r, err := d.result()
	if err != nil {
		return nil, err
	}
	if r.Schema != Schema {
		if r.Schema == "" {
			return nil, fmt.Errorf("no \"schema\" field: not an rlbench result (want %q)", Schema)
		}
		return nil, fmt.Errorf("schema %q is not supported (want %q)", r.Schema, Schema)
	}
	for i, run := range r.Runs {
		if run.Algorithm == "" || run.Scenario == "" {
			return nil, fmt.Errorf("runs[%d] lacks its algorithm or scenario", i)
		}
	}
	if r.Verdict != Pass && r.Verdict != Fail && r.Verdict != Inconclusive {
		return nil, fmt.Errorf("verdict %q is not %q, %q or %q", r.Verdict, Pass, Fail, Inconclusive)
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	// A result written before texts were cut reads as one written since.
	r.ClipTexts()
	return r, nil
}

// streamDecoder holds what decode needs while it reads.
type streamDecoder struct {
	ctx   context.Context
	dec   *json.Decoder
	in    *countingReader
	again rereader
}

// result decodes the top-level object.
func (d *streamDecoder) result() (*Result, error) {
	tok, err := d.dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty file, not a result")
	}
	if err != nil {
		return nil, d.jsonError(err, -1, "")
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: the file holds a JSON %s, not a result object", d.where(0), jsonKind(tok))
	}
	var r Result
	fields := resultFields()
	for d.dec.More() {
		if err := d.ctx.Err(); err != nil {
			return nil, err
		}
		keyAt := d.dec.InputOffset()
		tok, err := d.dec.Token()
		if err != nil {
			return nil, d.jsonError(err, -1, "")
		}
		key, _ := tok.(string)
		if key == "runs" || strings.EqualFold(key, "runs") {
			if err := d.runs(&r); err != nil {
				return nil, err
			}
			continue
		}
		i, ok := fields[key]
		if !ok {
			i, ok = fields[strings.ToLower(key)]
		}
		if !ok {
			return nil, fmt.Errorf("%s: json: unknown field %q", d.where(keyAt), key)
		}
		if err := d.value(reflect.ValueOf(&r).Elem().Field(i).Addr().Interface(), key+"."); err != nil {
			return nil, err
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return nil, d.jsonError(err, -1, "")
	}
	if _, err := d.dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil && !isSyntax(err) {
			return nil, err
		}
		return nil, errors.New("trailing data after the result object")
	}
	return &r, nil
}

// runs decodes the runs array, one run at a time; ctx ending stops it
// between two.
func (d *streamDecoder) runs(r *Result) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.jsonError(err, -1, "")
	}
	if tok == nil {
		r.Runs = nil
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("%s: field runs holds a JSON %s, want an array of runs", d.where(d.dec.InputOffset()), jsonKind(tok))
	}
	r.Runs = r.Runs[:0]
	for d.dec.More() {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		var run Run
		if err := d.value(&run, "runs."); err != nil {
			return err
		}
		r.Runs = append(r.Runs, run)
	}
	if _, err := d.dec.Token(); err != nil {
		return d.jsonError(err, -1, "")
	}
	return nil
}

// value decodes the next value into v, refusing unknown fields; field
// names the value's place in an error ("runs.", "profile."). The decoder
// reads the value whole into its buffer, and no further: what is held at
// once is one value's JSON.
func (d *streamDecoder) value(v any, field string) error {
	start := d.valueStart()
	if err := d.dec.Decode(v); err != nil {
		return d.jsonError(err, start, field)
	}
	return nil
}

// valueStart is where the offsets of an error in the next value count
// from: past the comma or colon before it, if any (encoding/json counts a
// value's offsets from the first byte after what its decoder consumed).
func (d *streamDecoder) valueStart() int64 {
	at := d.dec.InputOffset()
	buf, _ := io.ReadAll(io.LimitReader(d.dec.Buffered(), 64))
	for i, b := range buf {
		switch b {
		case ' ', '\t', '\r', '\n':
		case ',', ':':
			return at + int64(i) + 1
		default:
			return at
		}
	}
	return at
}

// jsonError says what err is and where: met in the value that starts
// at base (whose place field names), or with base -1 in the structure
// around the values, at the decoder's position.
func (d *streamDecoder) jsonError(err error, base int64, field string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		// The top level's end is checked apart: an end here is inside it.
		return fmt.Errorf("truncated JSON (the file ends after %d bytes, inside a value)", d.in.n)
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at %s: %v", d.where(d.syntaxOffset(base)), err)
	case errors.As(err, &typ):
		name := strings.TrimSuffix(field, ".")
		if typ.Field != "" {
			name = field + typ.Field
		}
		return fmt.Errorf("%s: field %s holds a JSON %s, want %s", d.where(max(base, 0)+typ.Offset), name, typ.Value, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return fmt.Errorf("%s: %v", d.where(max(base, 0)), err)
	}
	return err
}

// syntaxOffset finds where malformed JSON is. encoding/json counts a
// syntax error's offset over the values it has scanned, not over the
// input, so the value starting at base is scanned again alone, from the
// input read again; without that, the decoder's position is near.
func (d *streamDecoder) syntaxOffset(base int64) int64 {
	if base < 0 || d.again == nil {
		return d.dec.InputOffset()
	}
	rc, err := d.again(base)
	if err != nil {
		return d.dec.InputOffset()
	}
	defer rc.Close()
	var raw json.RawMessage
	var syn *json.SyntaxError
	if err := json.NewDecoder(rc).Decode(&raw); errors.As(err, &syn) {
		return base + syn.Offset
	}
	return d.dec.InputOffset()
}

// where names an offset of the input: its line and column, or the byte
// when the input cannot be read again.
func (d *streamDecoder) where(offset int64) string {
	if d.again != nil {
		if rc, err := d.again(0); err == nil {
			defer rc.Close()
			line, col := 1, 1
			br := bufio.NewReader(io.LimitReader(rc, offset))
			for {
				b, err := br.ReadByte()
				if err != nil {
					return fmt.Sprintf("line %d, column %d", line, col)
				}
				if b == '\n' {
					line, col = line+1, 1
				} else {
					col++
				}
			}
		}
	}
	return fmt.Sprintf("byte %d", offset)
}

// isSyntax reports whether err is malformed JSON.
func isSyntax(err error) bool {
	var syn *json.SyntaxError
	return errors.As(err, &syn)
}

// jsonKind names the kind of JSON value a token begins.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	}
	return fmt.Sprintf("%v", tok)
}

// resultFields maps each JSON name of a Result's fields (and its lower
// case, as encoding/json matches names) to the field's index.
var resultFields = sync.OnceValue(func() map[string]int {
	out := map[string]int{}
	t := reflect.TypeFor[Result]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = i
		if _, taken := out[strings.ToLower(name)]; !taken {
			out[strings.ToLower(name)] = i
		}
	}
	return out
})

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// rereadFile reads the regular file at path again from an offset on; a
// named pipe cannot be read again.
func rereadFile(path string) rereader {
	return func(from int64) (io.ReadCloser, error) {
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			return nil, errors.New("not a regular file")
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
}
