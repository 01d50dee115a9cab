// Package ring provides a fixed-capacity ring buffer of float64 samples
// with a running mean, used to smooth sensor readings.
package ring

import (
	"errors"
	"math"
)

// ErrEmpty is returned when a statistic is asked of an empty buffer.
var ErrEmpty = errors.New("ring: buffer is empty")

// Buffer keeps the most recent Cap samples; older samples are overwritten.
type Buffer struct {
	samples []float64
	next    int
	full    bool
	sum     float64
}

// New returns a buffer holding at most capacity samples. It panics if capacity < 1.
func New(capacity int) *Buffer {
	if capacity < 1 {
		panic("ring: capacity must be at least 1")
	}
	return &Buffer{samples: make([]float64, capacity)}
}

// Push adds a sample, evicting the oldest one when the buffer is full.
func (b *Buffer) Push(x float64) {
	if b.full {
		b.sum -= b.samples[b.next]
	}
	b.samples[b.next] = x
	b.sum += x
	b.next = (b.next + 1) % len(b.samples)
	if b.next == 0 {
		b.full = true
	}
}

// Len reports how many samples the buffer currently holds.
func (b *Buffer) Len() int {
	if b.full {
		return len(b.samples)
	}
	return b.next
}

// Mean returns the average of the held samples.
func (b *Buffer) Mean() (float64, error) {
	n := b.Len()
	if n == 0 {
		return math.NaN(), ErrEmpty
	}
	return b.sum / float64(n), nil
}
