package server

import (
	"crypto/rand"
	"encoding/binary"
	"sync/atomic"
	"time"
)

// requestIDs hands out request ids: UUIDs of version 7 in canonical text
// form, as the logs and X-Request-Id have always shown them, made without
// reading the system's random source per request. Each id is the request's
// millisecond (the 48-bit timestamp of version 7), 12 bits drawn once per
// process, and a 62-bit counter that starts at a random value and is
// bumped per id. Two ids of one process never share the counter, so they
// never repeat (before 2^62 requests); two processes differ by their random
// bits and counter starts. An id needs to be unique and plain, not secret:
// it names a request in the log, and nothing is granted by knowing one.
type requestIDs struct {
	randA   uint16        // 12 bits, drawn once
	counter atomic.Uint64 // the low 62 bits are the id's rand_b
}

func newRequestIDs() *requestIDs {
	var seed [10]byte
	if _, err := rand.Read(seed[:]); err != nil {
		panic("server: no random source: " + err.Error())
	}
	g := &requestIDs{randA: binary.BigEndian.Uint16(seed[:2]) & 0x0fff}
	g.counter.Store(binary.BigEndian.Uint64(seed[2:]))
	return g
}

// next returns the id of a request that arrived at t.
func (g *requestIDs) next(t time.Time) string {
	var u [16]byte
	ms := uint64(t.UnixMilli())
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	binary.BigEndian.PutUint16(u[6:8], 0x7000|g.randA)                  // version 7
	binary.BigEndian.PutUint64(u[8:], g.counter.Add(1)&(1<<62-1)|1<<63) // variant 10
	return formatUUID(&u)
}

// formatUUID writes u as 8-4-4-4-12 lowercase hex digits.
func formatUUID(u *[16]byte) string {
	const hex = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hex[c>>4], hex[c&0x0f]
		j += 2
	}
	return string(b[:])
}
