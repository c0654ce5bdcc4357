package proxy

// TakeDestructs removes the handles of dropped arrays that wait for a batched
// DestructArrayRequest and returns them with LastOpID, which is after every
// request that used them. A caller that delivers them to the server by
// another path (a worker's gang launch, workerpb.LaunchRequest's
// release_handles) has the server destruct them once it has taken request
// afterOp, and gives back with Destruct the ones it could not deliver.
func (c *Client) TakeDestructs() (handles []ArrayHandle, afterOp uint64) {
	hs, afterOp := c.sess.takeDestructs()
	handles = make([]ArrayHandle, len(hs))
	for i, h := range hs {
		handles[i] = ArrayHandle(h)
	}
	return handles, afterOp
}

// Destruct queues handles for a batched DestructArrayRequest, as dropping
// their arrays does.
func (c *Client) Destruct(handles ...ArrayHandle) {
	for _, h := range handles {
		c.destructHandle(uint64(h))
	}
}
