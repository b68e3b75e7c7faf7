package oauth

import (
	"container/list"
	"sync"
	"time"
)

// clientCache keeps the clients of recently fetched metadata documents in
// memory, so that the consent page and its form do not fetch a document
// twice, and a client is stored only once a person approves it. Anyone can
// make the server fetch a document, so the cache is bounded in entries and
// in bytes, and the least recently used entry goes first.
type clientCache struct {
	ttl        time.Duration
	maxEntries int
	maxBytes   int

	mu      sync.Mutex
	order   *list.List // of *cachedClient, the most recently used first
	entries map[string]*list.Element
	bytes   int
}

type cachedClient struct {
	client    Client
	fetchedAt time.Time
	size      int
}

func newClientCache(ttl time.Duration, maxEntries, maxBytes int) *clientCache {
	return &clientCache{ttl: ttl, maxEntries: maxEntries, maxBytes: maxBytes,
		order: list.New(), entries: map[string]*list.Element{}}
}

// clientSize is what an entry counts against the byte bound: its strings
// and a fixed share for the map and list bookkeeping and the slices.
func clientSize(c Client) int {
	n := 256 + len(c.ID)*2 + len(c.Name) + len(c.Scope)
	for _, s := range c.RedirectURIs {
		n += 16 + len(s)
	}
	for _, s := range c.GrantTypes {
		n += 16 + len(s)
	}
	return n
}

// get returns the client fetched from id's document within the last ttl.
func (c *clientCache) get(id string, now time.Time) (Client, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[id]
	if !ok {
		return Client{}, false
	}
	e := el.Value.(*cachedClient)
	if now.Sub(e.fetchedAt) >= c.ttl || now.Before(e.fetchedAt) {
		c.remove(el)
		return Client{}, false
	}
	c.order.MoveToFront(el)
	return e.client, true
}

// put keeps client, fetched at fetchedAt, and drops the least recently used
// entries while the cache is over either bound.
func (c *clientCache) put(client Client, fetchedAt time.Time) {
	e := &cachedClient{client: client, fetchedAt: fetchedAt, size: clientSize(client)}
	if e.size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[client.ID]; ok {
		c.remove(el)
	}
	c.entries[client.ID] = c.order.PushFront(e)
	c.bytes += e.size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

// remove drops an entry. c.mu is held.
func (c *clientCache) remove(el *list.Element) {
	e := c.order.Remove(el).(*cachedClient)
	delete(c.entries, e.client.ID)
	c.bytes -= e.size
}
