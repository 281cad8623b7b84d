// Package wav reads and writes RIFF WAVE files holding 16-bit PCM audio, the
// one format the voice pipeline exchanges with files, browsers and speech
// services (test utterances, fake microphones, in-memory uploads).
package wav

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Errors returned by Decode, wrapped with details; test them with errors.Is.
var (
	// ErrNotWAV means the input is not a RIFF WAVE file at all.
	ErrNotWAV = errors.New("wav: not a RIFF WAVE file")
	// ErrUnsupported means a valid WAVE file in a format other than 16-bit
	// integer PCM with one or two channels.
	ErrUnsupported = errors.New("wav: unsupported format")
	// ErrTruncated means the file ends before its header or data says it does.
	ErrTruncated = errors.New("wav: truncated file")
)

const (
	headerBytes = 44
	// formatPCM and formatExtensible are the WAVE format tags for integer
	// PCM, the latter carrying the real format in a sub-format GUID.
	formatPCM        = 1
	formatExtensible = 0xFFFE
	// streamingSize is the data size some writers put in the header when
	// they stream and cannot seek back: the data then runs to end of file.
	streamingSize = 0xFFFFFFFF
	// maxDataBytes is the largest data chunk a RIFF header can describe.
	maxDataBytes = math.MaxUint32 - (headerBytes - 8)
	// encodeBlockSamples bounds Encode's scratch buffer.
	encodeBlockSamples = 4096
	// convertHint tells a user how to make a file Decode accepts.
	convertHint = "convert it with: sox in.wav -b 16 -e signed-integer -c 1 out.wav"
)

// Encode writes pcm as a mono 16-bit little-endian PCM WAVE file sampled at
// rateHz.
func Encode(w io.Writer, pcm []int16, rateHz int) error {
	if rateHz <= 0 || rateHz > math.MaxInt32/2 {
		return fmt.Errorf("wav: encode: invalid sample rate %d Hz", rateHz)
	}
	dataBytes := uint64(len(pcm)) * 2
	if dataBytes > maxDataBytes {
		return fmt.Errorf("wav: encode: %d samples do not fit in one WAVE file", len(pcm))
	}
	var h [headerBytes]byte
	copy(h[0:4], "RIFF")
	binary.LittleEndian.PutUint32(h[4:8], uint32(dataBytes)+headerBytes-8)
	copy(h[8:12], "WAVE")
	copy(h[12:16], "fmt ")
	binary.LittleEndian.PutUint32(h[16:20], 16)
	binary.LittleEndian.PutUint16(h[20:22], formatPCM)
	binary.LittleEndian.PutUint16(h[22:24], 1) // channels
	binary.LittleEndian.PutUint32(h[24:28], uint32(rateHz))
	binary.LittleEndian.PutUint32(h[28:32], uint32(rateHz)*2) // byte rate
	binary.LittleEndian.PutUint16(h[32:34], 2)                // block align
	binary.LittleEndian.PutUint16(h[34:36], 16)               // bits per sample
	copy(h[36:40], "data")
	binary.LittleEndian.PutUint32(h[40:44], uint32(dataBytes))
	if _, err := w.Write(h[:]); err != nil {
		return fmt.Errorf("wav: encode: write header: %w", err)
	}
	buf := make([]byte, 2*min(len(pcm), encodeBlockSamples))
	for len(pcm) > 0 {
		n := min(len(pcm), encodeBlockSamples)
		for i, s := range pcm[:n] {
			binary.LittleEndian.PutUint16(buf[2*i:], uint16(s))
		}
		if _, err := w.Write(buf[:2*n]); err != nil {
			return fmt.Errorf("wav: encode: write samples: %w", err)
		}
		pcm = pcm[n:]
	}
	return nil
}

// format is what Decode needs from the "fmt " chunk.
type format struct {
	channels      int
	rateHz        int
	bitsPerSample int
}

// Decode reads a 16-bit integer PCM WAVE file with one or two channels and
// returns its samples as mono (stereo is averaged to mono) with the sample
// rate. Chunks other than "fmt " and "data" are skipped. Anything else —
// floating point, 8/24/32-bit, more than two channels, compressed formats —
// is an error wrapping ErrUnsupported that says how to convert the file.
func Decode(r io.Reader) (pcm []int16, rateHz int, err error) {
	var riff [12]byte
	if _, err := io.ReadFull(r, riff[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, 0, fmt.Errorf("%w: input is too short for a RIFF header", ErrNotWAV)
		}
		return nil, 0, fmt.Errorf("wav: decode: read header: %w", err)
	}
	if string(riff[0:4]) != "RIFF" || string(riff[8:12]) != "WAVE" {
		return nil, 0, fmt.Errorf("%w: header starts %q, want \"RIFF....WAVE\"", ErrNotWAV, riff[:])
	}
	var f *format
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				if f == nil {
					return nil, 0, fmt.Errorf("%w: no \"fmt \" chunk", ErrTruncated)
				}
				return nil, 0, fmt.Errorf("%w: no \"data\" chunk", ErrTruncated)
			}
			return nil, 0, fmt.Errorf("wav: decode: read chunk header: %w", err)
		}
		id, size := string(ch[0:4]), binary.LittleEndian.Uint32(ch[4:8])
		switch id {
		case "fmt ":
			if f, err = readFormat(r, size); err != nil {
				return nil, 0, err
			}
		case "data":
			if f == nil {
				return nil, 0, fmt.Errorf("%w: \"data\" chunk before \"fmt \" chunk", ErrNotWAV)
			}
			pcm, err := readData(r, size, f.channels)
			if err != nil {
				return nil, 0, err
			}
			return pcm, f.rateHz, nil
		default:
			if err := skip(r, int64(size)+int64(size&1)); err != nil {
				return nil, 0, fmt.Errorf("%w: chunk %q", err, id)
			}
		}
	}
}

// readFormat parses a "fmt " chunk of the given size and checks that Decode
// supports it.
func readFormat(r io.Reader, size uint32) (*format, error) {
	if size < 16 {
		return nil, fmt.Errorf("%w: \"fmt \" chunk of %d bytes, want at least 16", ErrNotWAV, size)
	}
	if size > 1<<16 {
		return nil, fmt.Errorf("%w: \"fmt \" chunk of %d bytes", ErrNotWAV, size)
	}
	b := make([]byte, int(size)+int(size&1))
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("%w: in \"fmt \" chunk", ErrTruncated)
	}
	tag := binary.LittleEndian.Uint16(b[0:2])
	f := &format{
		channels:      int(binary.LittleEndian.Uint16(b[2:4])),
		rateHz:        int(binary.LittleEndian.Uint32(b[4:8])),
		bitsPerSample: int(binary.LittleEndian.Uint16(b[14:16])),
	}
	if tag == formatExtensible && size >= 40 {
		// The first two bytes of the sub-format GUID hold the real tag.
		tag = binary.LittleEndian.Uint16(b[24:26])
	}
	switch {
	case tag != formatPCM:
		return nil, fmt.Errorf("%w: format tag %#x, want 1 (integer PCM); %s", ErrUnsupported, tag, convertHint)
	case f.bitsPerSample != 16:
		return nil, fmt.Errorf("%w: %d-bit samples, want 16-bit; %s", ErrUnsupported, f.bitsPerSample, convertHint)
	case f.channels != 1 && f.channels != 2:
		return nil, fmt.Errorf("%w: %d channels, want 1 or 2; %s", ErrUnsupported, f.channels, convertHint)
	case f.rateHz <= 0:
		return nil, fmt.Errorf("%w: sample rate %d Hz", ErrNotWAV, f.rateHz)
	}
	return f, nil
}

// readData reads a "data" chunk of size bytes (streamingSize: to end of
// input) of interleaved 16-bit frames and returns them as mono samples.
func readData(r io.Reader, size uint32, channels int) ([]int16, error) {
	var b []byte
	if size == streamingSize {
		var err error
		if b, err = io.ReadAll(r); err != nil {
			return nil, fmt.Errorf("wav: decode: read samples: %w", err)
		}
	} else {
		// Grow as data arrives rather than trusting the header with one
		// allocation: a corrupt size must not cost gigabytes.
		var err error
		lr := io.LimitReader(r, int64(size))
		if b, err = io.ReadAll(lr); err != nil {
			return nil, fmt.Errorf("wav: decode: read samples: %w", err)
		}
		if len(b) < int(size) {
			return nil, fmt.Errorf("%w: \"data\" chunk holds %d of %d bytes", ErrTruncated, len(b), size)
		}
	}
	frameBytes := 2 * channels
	if len(b)%frameBytes != 0 {
		return nil, fmt.Errorf("%w: %d data bytes is not a whole number of %d-byte frames", ErrTruncated, len(b), frameBytes)
	}
	pcm := make([]int16, len(b)/frameBytes)
	if channels == 1 {
		for i := range pcm {
			pcm[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
		}
		return pcm, nil
	}
	for i := range pcm {
		left := int32(int16(binary.LittleEndian.Uint16(b[4*i:])))
		right := int32(int16(binary.LittleEndian.Uint16(b[4*i+2:])))
		pcm[i] = int16((left + right) / 2)
	}
	return pcm, nil
}

// skip discards n bytes of r.
func skip(r io.Reader, n int64) error {
	got, err := io.CopyN(io.Discard, r, n)
	if got < n {
		if err == nil || errors.Is(err, io.EOF) {
			return ErrTruncated
		}
		return fmt.Errorf("wav: decode: skip chunk: %w", err)
	}
	return nil
}
