package proxy

import "github.com/openpathways/pathways/ifrt"

// ReserveHandle returns a fresh array handle of the session, for an array that
// something other than this client will register on the server, such as a
// worker-to-worker transfer (see package worker). Pass the handle to AdoptArray
// once the server holds the array.
func (c *Client) ReserveHandle() (ArrayHandle, error) {
	if err := c.checkOpen(); err != nil {
		return 0, err
	}
	h, err := c.newHandle()
	return ArrayHandle(h), err
}

// AdoptArray returns the array the server holds under handle in this client's
// session, described by spec (whose devices must be this client's). The client then
// owns it like any array it made: Delete frees it, and dropping it destructs the
// handle.
func (c *Client) AdoptArray(handle ArrayHandle, spec ifrt.ArraySpec) ifrt.Array {
	return c.newArray(uint64(handle), spec)
}
