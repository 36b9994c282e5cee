package fake

// ring keeps the last values added, up to its limit, oldest first: the
// bounded logs (requests, events, webhook deliveries) are rings, so that a
// long run keeps a fixed amount of each.
type ring[T any] struct {
	buf   []T
	next  int // where the next value goes once buf is full: the oldest
	limit int
}

// add appends v, dropping the oldest value when the ring is full.
func (r *ring[T]) add(v T) {
	if len(r.buf) < r.limit {
		r.buf = append(r.buf, v)
		return
	}
	r.buf[r.next] = v
	r.next = (r.next + 1) % len(r.buf)
}

// len is the number of values kept.
func (r *ring[T]) len() int { return len(r.buf) }

// all calls fn with each value kept, oldest first.
func (r *ring[T]) all(fn func(T)) {
	for _, v := range r.buf[r.next:] {
		fn(v)
	}
	for _, v := range r.buf[:r.next] {
		fn(v)
	}
}

// clear drops every value.
func (r *ring[T]) clear() {
	r.buf, r.next = nil, 0
}

// at returns the i-th value kept, oldest first (0 is the oldest).
func (r *ring[T]) at(i int) T { return r.buf[(r.next+i)%len(r.buf)] }
