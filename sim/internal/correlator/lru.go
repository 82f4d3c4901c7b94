package correlator

import "container/list"

// lru is a least-recently-used map: get and put both make a key the most
// recent, and put drops the least recent key once size is exceeded.
type lru[V any] struct {
	size  int
	order *list.List // front = most recent; values are *lruEntry[V]
	index map[string]*list.Element
}

type lruEntry[V any] struct {
	key   string
	value V
}

func newLRU[V any](size int) *lru[V] {
	return &lru[V]{size: size, order: list.New(), index: map[string]*list.Element{}}
}

func (c *lru[V]) get(key string) (V, bool) {
	el, ok := c.index[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[V]).value, true
}

func (c *lru[V]) put(key string, value V) {
	if el, ok := c.index[key]; ok {
		c.order.MoveToFront(el)
		el.Value.(*lruEntry[V]).value = value
		return
	}
	c.index[key] = c.order.PushFront(&lruEntry[V]{key: key, value: value})
	if c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.index, oldest.Value.(*lruEntry[V]).key)
	}
}
