package httpadapter

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// requestIDs hands out request ids: random UUIDs (version 4), as
// uuid.NewString makes them, from random bytes read 4 KiB at a time. A
// read of 16 bytes a request was a call to the kernel a request.
var requestIDs = &idSource{off: idBuffer}

const idBuffer = 4096

type idSource struct {
	mu  sync.Mutex
	buf [idBuffer]byte
	off int // the next unused byte; idBuffer when none is left
}

func (s *idSource) next() string {
	u := s.take()
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // the variant of RFC 9562
	var out [36]byte
	hex.Encode(out[0:8], u[0:4])
	hex.Encode(out[9:13], u[4:6])
	hex.Encode(out[14:18], u[6:8])
	hex.Encode(out[19:23], u[8:10])
	hex.Encode(out[24:36], u[10:16])
	out[8], out[13], out[18], out[23] = '-', '-', '-', '-'
	return string(out[:])
}

// take is the next 16 random bytes of the buffer, read again when spent.
func (s *idSource) take() (u [16]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off == idBuffer {
		_, _ = rand.Read(s.buf[:]) // never fails: crypto/rand ends the program first
		s.off = 0
	}
	copy(u[:], s.buf[s.off:])
	s.off += len(u)
	return u
}
