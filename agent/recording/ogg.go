package recording

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Ogg/Opus framing (RFC 3533, RFC 7845).
const (
	// opusGranuleRate is the rate of Ogg/Opus granule positions: always
	// 48 kHz, whatever the encoder's input rate.
	opusGranuleRate = 48000
	// opusPreSkip48kHz is the encoder's look-ahead at 48 kHz that a decoder
	// drops from the start: libopus's in restricted low-delay mode (CELT
	// only, the recorder's encoderApplication), 2.5 ms.
	opusPreSkip48kHz = 120
	// pagePackets is how many packets go into one page (one second of
	// 20 ms packets): few pages, and the file grows every second.
	pagePackets = 50
	// maxSegments is the most lacing values one page holds.
	maxSegments = 255
)

// Ogg page header flags.
const (
	flagBOS = 0x02 // first page of the stream
	flagEOS = 0x04 // last page of the stream
)

// oggOpusWriter writes one mono Opus stream in Ogg pages: the OpusHead and
// OpusTags headers, then the audio packets, pagePackets to a page, each page
// carrying the granule position (48 kHz samples, pre-skip included) of the
// end of its last packet.
//
// pion's oggwriter (github.com/pion/webrtc/v4/pkg/media/oggwriter) cannot
// write these files, so this writer stays:
//   - its pre-skip is fixed at 3840 samples (80 ms): a player would drop
//     the first 77.5 ms of the interview's audio, where the recorder's
//     encoder looks ahead 120 samples (opusPreSkip48kHz);
//   - it marks the end of a stream only by seeking back in an *os.File,
//     so a stream written to any other io.Writer (as Encode writes one)
//     never ends, and its final granule position cannot be set;
//   - it takes RTP packets and derives granule positions from their
//     timestamps, where the recorder holds encoded frames on its own clock;
//   - it writes one page per packet: 28 bytes per 20 ms, so a minute of
//     60-byte voice packets takes 264,096 bytes there and 184,715 here
//     (43 % more on disk).
type oggOpusWriter struct {
	w       io.Writer
	serial  uint32
	seq     uint32
	packets [][]byte
	granule uint64 // of the end of the last packet queued
	page    []byte
}

// newOggOpusWriter writes the two header pages of a mono stream whose input
// was inputSampleRateHz and returns the writer of its packets.
func newOggOpusWriter(w io.Writer, serial uint32, inputSampleRateHz int, vendor string) (*oggOpusWriter, error) {
	o := &oggOpusWriter{w: w, serial: serial}
	head := make([]byte, 19)
	copy(head, "OpusHead")
	head[8] = 1 // version
	head[9] = 1 // channels
	binary.LittleEndian.PutUint16(head[10:], opusPreSkip48kHz)
	binary.LittleEndian.PutUint32(head[12:], uint32(inputSampleRateHz))
	// Output gain 0 and channel mapping family 0 stay zero.
	if err := o.writePage(flagBOS, 0, [][]byte{head}); err != nil {
		return nil, err
	}
	tags := make([]byte, 0, 16+len(vendor))
	tags = append(tags, "OpusTags"...)
	tags = binary.LittleEndian.AppendUint32(tags, uint32(len(vendor)))
	tags = append(tags, vendor...)
	tags = binary.LittleEndian.AppendUint32(tags, 0) // no user comments
	if err := o.writePage(0, 0, [][]byte{tags}); err != nil {
		return nil, err
	}
	return o, nil
}

// WritePacket queues one packet of samples48kHz samples (at 48 kHz),
// first writing the page queued when it is full. A full page waits for
// the next packet, so the last page (Close) always has one.
func (o *oggOpusWriter) WritePacket(pkt []byte, samples48kHz int) error {
	if len(o.packets) >= pagePackets || o.segments()+len(pkt)/255+1 > maxSegments {
		if err := o.flush(0); err != nil {
			return err
		}
	}
	o.packets = append(o.packets, append([]byte(nil), pkt...))
	o.granule += uint64(samples48kHz)
	return nil
}

// Close writes the last page, marked end of stream, with granule position
// finalGranule: the stream's length in 48 kHz samples, pre-skip included,
// which may trim the last packet. At least one packet must be queued.
func (o *oggOpusWriter) Close(finalGranule uint64) error {
	if len(o.packets) == 0 {
		return fmt.Errorf("recording: ogg: no packet left for the last page")
	}
	o.granule = min(o.granule, finalGranule)
	return o.flush(flagEOS)
}

func (o *oggOpusWriter) segments() int {
	n := 0
	for _, p := range o.packets {
		n += len(p)/255 + 1
	}
	return n
}

func (o *oggOpusWriter) flush(flags byte) error {
	if len(o.packets) == 0 {
		return nil
	}
	err := o.writePage(flags, o.granule, o.packets)
	o.packets = o.packets[:0]
	return err
}

// writePage writes one page holding whole packets.
func (o *oggOpusWriter) writePage(flags byte, granule uint64, packets [][]byte) error {
	var lacing []byte
	size := 0
	for _, p := range packets {
		for n := len(p); ; n -= 255 {
			if n < 255 {
				lacing = append(lacing, byte(n))
				break
			}
			lacing = append(lacing, 255)
		}
		size += len(p)
	}
	page := o.page[:0]
	page = append(page, "OggS"...)
	page = append(page, 0, flags)
	page = binary.LittleEndian.AppendUint64(page, granule)
	page = binary.LittleEndian.AppendUint32(page, o.serial)
	page = binary.LittleEndian.AppendUint32(page, o.seq)
	page = binary.LittleEndian.AppendUint32(page, 0) // CRC, set below
	page = append(page, byte(len(lacing)))
	page = append(page, lacing...)
	for _, p := range packets {
		page = append(page, p...)
	}
	binary.LittleEndian.PutUint32(page[22:], oggCRC(page))
	o.page = page
	o.seq++
	if _, err := o.w.Write(page); err != nil {
		return fmt.Errorf("recording: writing an ogg page: %w", err)
	}
	return nil
}

// oggCRCTable is the table of Ogg's CRC-32: polynomial 0x04c11db7, not
// reflected, initial value and final XOR zero.
var oggCRCTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// oggCRC is the checksum of a page whose CRC field is zero.
func oggCRC(page []byte) uint32 {
	var crc uint32
	for _, b := range page {
		crc = crc<<8 ^ oggCRCTable[byte(crc>>24)^b]
	}
	return crc
}
