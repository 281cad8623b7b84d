package wav

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestEncodeHeaderBytes(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, []int16{1, -2}, 16000); err != nil {
		t.Fatal(err)
	}
	want := "52494646" + "28000000" + "57415645" + // RIFF, 40, WAVE
		"666d7420" + "10000000" + "0100" + "0100" + // "fmt ", 16, PCM, mono
		"803e0000" + "007d0000" + "0200" + "1000" + // 16000 Hz, 32000 B/s, align 2, 16 bits
		"64617461" + "04000000" + // data, 4 bytes
		"0100" + "feff" // 1, -2
	if got := hex.EncodeToString(buf.Bytes()); got != want {
		t.Fatalf("encoded\n got %s\nwant %s", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	ramp := make([]int16, 4801)
	for i := range ramp {
		ramp[i] = int16(i*13 - 30000)
	}
	tests := []struct {
		name   string
		pcm    []int16
		rateHz int
	}{
		{"empty", []int16{}, 16000},
		{"one sample", []int16{-1}, 8000},
		{"extremes", []int16{math.MinInt16, math.MaxInt16, 0, -1, 1}, 24000},
		{"longer than one encode block", ramp, 48000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Encode(&buf, tt.pcm, tt.rateHz); err != nil {
				t.Fatal(err)
			}
			if got, want := buf.Len(), 44+2*len(tt.pcm); got != want {
				t.Errorf("encoded %d bytes, want %d", got, want)
			}
			pcm, rate, err := Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if rate != tt.rateHz {
				t.Errorf("rate %d, want %d", rate, tt.rateHz)
			}
			if !slices.Equal(pcm, tt.pcm) {
				t.Errorf("samples differ: got %d samples, want %d", len(pcm), len(tt.pcm))
			}
		})
	}
}

// file builds a WAVE file from a format description, extra chunks placed
// before "data", and raw data bytes.
type file struct {
	tag, channels, bits uint16
	subTag              uint16 // extensible sub-format tag when tag is 0xFFFE
	rateHz              uint32
	noFmt               bool
	dataFirst           bool
	extra               [][2]string // chunk id, body
	dataSize            *uint32     // header's data size; default len(data)
	data                []byte
	noData              bool
}

func (f file) bytes() []byte {
	var fmtChunk bytes.Buffer
	le := binary.LittleEndian
	align := f.channels * f.bits / 8
	fields := []any{f.tag, f.channels, f.rateHz, f.rateHz * uint32(align), align, f.bits}
	for _, v := range fields {
		_ = binary.Write(&fmtChunk, le, v)
	}
	if f.tag == formatExtensible {
		_ = binary.Write(&fmtChunk, le, uint16(22)) // cbSize
		_ = binary.Write(&fmtChunk, le, f.bits)     // valid bits
		_ = binary.Write(&fmtChunk, le, uint32(0))  // channel mask
		_ = binary.Write(&fmtChunk, le, f.subTag)   // GUID starts with the tag
		fmtChunk.Write(make([]byte, 14))            // rest of the GUID
	}
	var body bytes.Buffer
	body.WriteString("WAVE")
	chunk := func(id string, b []byte, size uint32) {
		body.WriteString(id)
		_ = binary.Write(&body, le, size)
		body.Write(b)
		if len(b)%2 == 1 && id != "data" {
			body.WriteByte(0)
		}
	}
	dataSize := uint32(len(f.data))
	if f.dataSize != nil {
		dataSize = *f.dataSize
	}
	if f.dataFirst {
		chunk("data", f.data, dataSize)
	}
	if !f.noFmt {
		chunk("fmt ", fmtChunk.Bytes(), uint32(fmtChunk.Len()))
	}
	for _, e := range f.extra {
		chunk(e[0], []byte(e[1]), uint32(len(e[1])))
	}
	if !f.noData && !f.dataFirst {
		chunk("data", f.data, dataSize)
	}
	out := append([]byte("RIFF"), le.AppendUint32(nil, uint32(body.Len()))...)
	return append(out, body.Bytes()...)
}

func samples(v ...int16) []byte {
	var b []byte
	for _, s := range v {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

func TestDecode(t *testing.T) {
	mono := file{tag: 1, channels: 1, bits: 16, rateHz: 16000}
	streaming := uint32(streamingSize)
	tooLong := uint32(100)
	tests := []struct {
		name     string
		in       []byte
		wantPCM  []int16
		wantRate int
		wantErr  error
	}{
		{"mono", with(mono, func(f *file) { f.data = samples(1, -2, 3) }), []int16{1, -2, 3}, 16000, nil},
		{"stereo averaged to mono",
			with(mono, func(f *file) {
				f.channels, f.rateHz = 2, 48000
				f.data = samples(1000, -3000, math.MaxInt16, math.MaxInt16, math.MinInt16, math.MinInt16, -1, 0)
			}),
			[]int16{-1000, math.MaxInt16, math.MinInt16, 0}, 48000, nil},
		{"other chunks skipped, odd size padded",
			with(mono, func(f *file) {
				f.extra = [][2]string{{"LIST", "INFOabc"}, {"fact", "1234"}}
				f.data = samples(7)
			}),
			[]int16{7}, 16000, nil},
		{"extensible PCM", with(mono, func(f *file) { f.tag, f.subTag, f.data = formatExtensible, 1, samples(5, 6) }), []int16{5, 6}, 16000, nil},
		{"streaming size reads to end", with(mono, func(f *file) { f.dataSize, f.data = &streaming, samples(9, 8) }), []int16{9, 8}, 16000, nil},

		{"empty input", nil, nil, 0, ErrNotWAV},
		{"not RIFF", []byte("RIFX\x00\x00\x00\x00WAVEfmt "), nil, 0, ErrNotWAV},
		{"RIFF but not WAVE", []byte("RIFF\x04\x00\x00\x00AVI "), nil, 0, ErrNotWAV},
		{"float samples", with(mono, func(f *file) { f.tag, f.bits = 3, 32 }), nil, 0, ErrUnsupported},
		{"extensible float", with(mono, func(f *file) { f.tag, f.subTag, f.bits = formatExtensible, 3, 32 }), nil, 0, ErrUnsupported},
		{"8-bit", with(mono, func(f *file) { f.bits = 8 }), nil, 0, ErrUnsupported},
		{"24-bit", with(mono, func(f *file) { f.bits = 24 }), nil, 0, ErrUnsupported},
		{"six channels", with(mono, func(f *file) { f.channels = 6 }), nil, 0, ErrUnsupported},
		{"data before fmt", with(mono, func(f *file) { f.dataFirst, f.data = true, samples(1) }), nil, 0, ErrNotWAV},
		{"no fmt chunk", with(mono, func(f *file) { f.noFmt, f.noData = true, true }), nil, 0, ErrTruncated},
		{"no data chunk", with(mono, func(f *file) { f.noData = true }), nil, 0, ErrTruncated},
		{"data shorter than header says", with(mono, func(f *file) { f.dataSize, f.data = &tooLong, samples(1, 2) }), nil, 0, ErrTruncated},
		{"half a stereo frame", with(mono, func(f *file) { f.channels, f.data = 2, samples(1, 2, 3) }), nil, 0, ErrTruncated},
		{"odd data bytes", with(mono, func(f *file) { f.data = []byte{1, 2, 3} }), nil, 0, ErrTruncated},
		{"chunk runs past end", with(mono, func(f *file) { f.noData = true; f.extra = [][2]string{{"LIST", strings.Repeat("x", 40)}} })[:60], nil, 0, ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcm, rate, err := Decode(bytes.NewReader(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rate != tt.wantRate || !slices.Equal(pcm, tt.wantPCM) {
				t.Fatalf("got %v at %d Hz, want %v at %d Hz", pcm, rate, tt.wantPCM, tt.wantRate)
			}
		})
	}
}

func with(f file, edit func(*file)) []byte {
	edit(&f)
	return f.bytes()
}

func TestUnsupportedSaysHowToConvert(t *testing.T) {
	_, _, err := Decode(bytes.NewReader(with(file{tag: 1, channels: 1, bits: 24, rateHz: 16000}, func(*file) {})))
	if err == nil || !strings.Contains(err.Error(), "sox") {
		t.Fatalf("error %v does not say how to convert the file", err)
	}
}

func TestEncodeErrors(t *testing.T) {
	failing := errors.New("disk full")
	tests := []struct {
		name    string
		w       io.Writer
		rateHz  int
		wantErr error
	}{
		{"zero rate", io.Discard, 0, nil},
		{"negative rate", io.Discard, -16000, nil},
		{"writer fails", errWriter{failing}, 16000, failing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Encode(tt.w, []int16{1}, tt.rateHz)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want it to wrap %v", err, tt.wantErr)
			}
		})
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }
