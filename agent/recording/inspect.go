package recording

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// Stream is an Ogg/Opus file as read back by Inspect.
type Stream struct {
	// Pages is the number of Ogg pages.
	Pages int
	// PreSkip48kHz is the OpusHead's pre-skip.
	PreSkip48kHz int
	// InputSampleRateHz is the OpusHead's input rate.
	InputSampleRateHz int
	// FinalGranule is the last page's granule position (48 kHz samples).
	FinalGranule uint64
	// Packets are the audio packets, in order.
	Packets [][]byte
}

// Duration is the stream's playing time: final granule minus pre-skip, as
// players compute it.
func (s *Stream) Duration() time.Duration {
	g := int64(s.FinalGranule) - int64(s.PreSkip48kHz)
	return time.Duration(g) * time.Second / opusGranuleRate
}

// Inspect checks an Ogg/Opus file page by page (capture pattern, version,
// CRC, sequence numbers, one stream, BOS and EOS flags, OpusHead and
// OpusTags) and returns what it holds.
func Inspect(data []byte) (*Stream, error) {
	var s Stream
	var packets [][]byte
	var partial []byte
	var serial uint32
	for off := 0; off < len(data); {
		if len(data)-off < 27 || !bytes.Equal(data[off:off+4], []byte("OggS")) || data[off+4] != 0 {
			return nil, fmt.Errorf("recording: no Ogg page at byte %d", off)
		}
		h := data[off:]
		flags := h[5]
		granule := binary.LittleEndian.Uint64(h[6:])
		ser, seq := binary.LittleEndian.Uint32(h[14:]), binary.LittleEndian.Uint32(h[18:])
		nseg := int(h[26])
		if len(h) < 27+nseg {
			return nil, fmt.Errorf("recording: page %d is cut short", seq)
		}
		size := 0
		for _, l := range h[27 : 27+nseg] {
			size += int(l)
		}
		total := 27 + nseg + size
		if len(h) < total {
			return nil, fmt.Errorf("recording: page %d is cut short", seq)
		}
		page := append([]byte(nil), h[:total]...)
		want := binary.LittleEndian.Uint32(page[22:])
		binary.LittleEndian.PutUint32(page[22:], 0)
		if oggCRC(page) != want {
			return nil, fmt.Errorf("recording: page %d has a bad CRC", seq)
		}
		switch {
		case s.Pages == 0 && flags&flagBOS == 0:
			return nil, errors.New("recording: the first page is not marked beginning of stream")
		case s.Pages == 0:
			serial = ser
		case ser != serial:
			return nil, errors.New("recording: more than one logical stream")
		case int(seq) != s.Pages:
			return nil, fmt.Errorf("recording: page %d where %d was expected", seq, s.Pages)
		}
		body := h[27+nseg : total]
		for _, l := range h[27 : 27+nseg] {
			partial = append(partial, body[:l]...)
			body = body[l:]
			if l < 255 {
				packets = append(packets, partial)
				partial = nil
			}
		}
		s.Pages++
		s.FinalGranule = granule
		off += total
		if flags&flagEOS != 0 {
			if off != len(data) {
				return nil, errors.New("recording: data after the end of stream")
			}
			break
		}
		if off == len(data) {
			return nil, errors.New("recording: the last page is not marked end of stream")
		}
	}
	if len(packets) < 2 || !bytes.HasPrefix(packets[0], []byte("OpusHead")) || len(packets[0]) < 19 || !bytes.HasPrefix(packets[1], []byte("OpusTags")) {
		return nil, errors.New("recording: no OpusHead and OpusTags headers")
	}
	s.PreSkip48kHz = int(binary.LittleEndian.Uint16(packets[0][10:]))
	s.InputSampleRateHz = int(binary.LittleEndian.Uint32(packets[0][12:]))
	s.Packets = packets[2:]
	return &s, nil
}

// Decode decodes the stream to mono PCM16 at SampleRateHz, the pre-skip
// dropped and the end trimmed to the final granule.
func (s *Stream) Decode() ([]int16, error) {
	dec, err := opus.NewDecoder(SampleRateHz, 1)
	if err != nil {
		return nil, fmt.Errorf("recording: creating the opus decoder: %w", err)
	}
	var out []int16
	buf := make([]int16, SampleRateHz/10)
	for _, p := range s.Packets {
		n, err := dec.Decode(p, buf)
		if err != nil {
			return nil, fmt.Errorf("recording: decoding: %w", err)
		}
		out = append(out, buf[:n]...)
	}
	skip := s.PreSkip48kHz * SampleRateHz / opusGranuleRate
	end := int(s.FinalGranule) * SampleRateHz / opusGranuleRate
	if skip > len(out) || end > len(out) || end < skip {
		return nil, errors.New("recording: the granule positions do not fit the audio")
	}
	return out[skip:end], nil
}
