package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"time"
)

// readBuffer is the size of the buffers a trace is read through.
const readBuffer = 64 << 10

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// stamp is what says a file is the one a summary was made from: its size
// and when it was last written.
type stamp struct {
	size    int64
	modTime time.Time
}

// openedFile is a trace opened for reading: its lines, plain or
// decompressed.
type openedFile struct {
	r      io.Reader
	f      *os.File
	gz     *gzip.Reader
	stamp  stamp
	gzip   bool
	closed bool
	// raw is the file's bytes as read, through sum when the file is
	// hashed (nil otherwise).
	raw io.Reader
	sum hash.Hash
}

// openFile opens the trace at path. It must be a regular file (it is read
// twice: checked, then replayed); gzip is told by its first two bytes.
// With hashed, the file's bytes go through SHA-256 as they are read (see
// digest).
func openFile(path string, hashed bool) (*openedFile, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &LineError{File: path, Msg: "cannot read: " + err.Error()}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &LineError{File: path, Msg: "cannot read: " + err.Error()}
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &LineError{File: path, Msg: "is not a regular file: a trace is read twice (checked, then replayed), so a pipe or a device will not do"}
	}
	o := &openedFile{f: f, raw: f, stamp: stamp{size: info.Size(), modTime: info.ModTime()}}
	if hashed {
		o.sum = sha256.New()
		o.raw = io.TeeReader(f, o.sum)
	}
	br := bufio.NewReaderSize(o.raw, readBuffer)
	head, _ := br.Peek(len(gzipMagic))
	if !bytes.Equal(head, gzipMagic) {
		o.r = br
		return o, nil
	}
	o.gz, err = gzip.NewReader(br)
	if err != nil {
		f.Close()
		return nil, &LineError{File: path, Msg: fmt.Sprintf("starts as gzip but is not: %v", err)}
	}
	o.gzip = true
	o.r = o.gz
	return o, nil
}

// digest is the SHA-256 of the whole file, in hex: what was read of it,
// and the rest read now.
func (o *openedFile) digest() (string, error) {
	if _, err := io.Copy(io.Discard, o.raw); err != nil {
		return "", err
	}
	return hex.EncodeToString(o.sum.Sum(nil)), nil
}

// Close closes the file.
func (o *openedFile) Close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	if o.gz != nil {
		_ = o.gz.Close()
	}
	return o.f.Close()
}

// lineReader hands out a trace's lines without their line ends, counting
// them, none longer than MaxLineBytes.
type lineReader struct {
	r    *bufio.Reader
	line int64
	// long holds a line longer than the buffer.
	long []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBuffer)}
}

// next returns the next line, valid until the following call, and io.EOF
// after the last. A line too long, or a file that cannot be read (a gzip
// stream cut short), is a fatal *LineError.
func (l *lineReader) next() ([]byte, error) {
	l.line++
	b, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.long = append(l.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = l.r.ReadSlice('\n')
			if len(l.long)+len(b) > MaxLineBytes+2 {
				return nil, fatal(l.line, "longer than %d bytes: is this a trace?", MaxLineBytes)
			}
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	switch {
	case errors.Is(err, io.EOF) && len(b) == 0:
		return nil, io.EOF
	case err != nil && !errors.Is(err, io.EOF):
		return nil, readError(l.line, err)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) > MaxLineBytes {
		return nil, fatal(l.line, "longer than %d bytes: is this a trace?", MaxLineBytes)
	}
	return b, nil
}

// readError is a file that could not be read at line.
func readError(line int64, err error) *LineError {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		return fatal(line, "the gzip stream is damaged or cut short here (%v)", err)
	}
	return fatal(line, "cannot read: %v", err)
}

// limitedLines fails a read once a line runs past MaxLineBytes: the
// bound a reader that gathers lines itself (encoding/csv) does not keep.
type limitedLines struct {
	r io.Reader
	// line is the line being read; since counts its bytes so far.
	line, since int64
}

func (l *limitedLines) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	chunk := p[:n]
	// A chunk is shorter than MaxLineBytes: only the line it continues,
	// and the one it leaves open, can run past it.
	if first := bytes.IndexByte(chunk, '\n'); first < 0 {
		l.since += int64(n)
	} else {
		if l.since+int64(first) > MaxLineBytes {
			return 0, fatal(l.line+1, "longer than %d bytes: is this a trace?", MaxLineBytes)
		}
		l.line += int64(bytes.Count(chunk, []byte("\n")))
		l.since = int64(n - bytes.LastIndexByte(chunk, '\n') - 1)
	}
	if l.since > MaxLineBytes {
		return 0, fatal(l.line+1, "longer than %d bytes: is this a trace?", MaxLineBytes)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, readError(l.line+1, err)
	}
	return n, err
}
