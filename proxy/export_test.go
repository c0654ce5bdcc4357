package proxy

import "time"

// SetDestructBatchDelay sets how long c's dropped handles wait for a batch
// before the timer sends them.
func SetDestructBatchDelay(c *Client, d time.Duration) {
	c.sess.dmu.Lock()
	defer c.sess.dmu.Unlock()
	c.sess.batchDelay = d
}
