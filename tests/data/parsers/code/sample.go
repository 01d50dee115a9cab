package lru

import "container/list"

// Cache is a fixed-size LRU cache.
type Cache struct {
	capacity int
	order    *list.List
}

// New makes a cache holding at most capacity items.
func New(capacity int) *Cache {
	return &Cache{capacity: capacity, order: list.New()}
}

// Len reports how many items are cached.
func (c *Cache) Len() int {
	return c.order.Len()
}
