package result

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
// (see input.Read); ctx ending stops a read that waits on a pipe.
func ReadFileContext(ctx context.Context, path string) (*Result, error) {
	data, err := input.Read(ctx, path, "a result", MaxResultBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	r, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Decode parses a result and says what is wrong with a malformed one:
// truncated JSON, unknown fields, another schema, missing parts, or a
// count or figure no run can have measured (see validate).
func Decode(data []byte) (*Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file, not a result")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Result
	if err := dec.Decode(&r); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("truncated JSON (the file ends after %d bytes, inside a value)", len(data))
		case errors.As(err, &syn):
			line, col := position(data, syn.Offset)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, err)
		case errors.As(err, &typ):
			line, col := position(data, typ.Offset)
			return nil, fmt.Errorf("line %d, column %d: field %s holds a JSON %s, want %s", line, col, typ.Field, typ.Value, typ.Type)
		default:
			return nil, err
		}
	}
	if dec.More() {
		return nil, errors.New("trailing data after the result object")
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
	return &r, nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
