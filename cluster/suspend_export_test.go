package cluster

// LinkedIncarnation is the incarnation of the worker the client's link to
// slice and host is up to, or "" while it is down.
func LinkedIncarnation(c *Client, slice, host int) string {
	l := c.links[hostKey{slice, host}]
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client == nil {
		return ""
	}
	return l.incarnation
}
