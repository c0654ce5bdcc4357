// Package faultnet is a TCP forwarder for tests of network faults: it forwards
// the connections made to its address to a target until told to freeze them (no
// byte passes, both sockets stay open: a path that died without either end
// noticing, or a peer that froze) or to cut them (both sockets close, as when a
// connection breaks). New connections are forwarded again after Cut, and after
// Thaw.
//
// A Proxy is safe for concurrent use; Close stops it and closes every
// connection.
package faultnet

import (
	"io"
	"net"
	"sync"
)

// Proxy forwards connections to one target.
type Proxy struct {
	lis    net.Listener
	target string

	mu     sync.Mutex
	frozen chan struct{} // closed while frozen
	conns  map[net.Conn]bool
	closed bool
}

// Listen starts a Proxy on a free loopback port that forwards to target.
func Listen(target string) (*Proxy, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{lis: lis, target: target, frozen: make(chan struct{}), conns: map[net.Conn]bool{}}
	go p.accept()
	return p, nil
}

// Addr is the address to dial instead of the target.
func (p *Proxy) Addr() string { return p.lis.Addr().String() }

func (p *Proxy) accept() {
	for {
		in, err := p.lis.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			in.Close()
			out.Close()
			return
		}
		p.conns[in], p.conns[out] = true, true
		frozen := p.frozen
		p.mu.Unlock()
		go pipe(out, in, frozen)
		go pipe(in, out, frozen)
	}
}

// pipe copies src to dst until either fails; once frozen is closed, it reads
// and drops everything.
func pipe(dst, src net.Conn, frozen <-chan struct{}) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-frozen:
			_, _ = io.Copy(io.Discard, src) // a frozen link swallows the rest, however it ends
			return
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

// Freeze stops every open connection from passing bytes; their sockets stay
// open. Connections made later are frozen too, until Thaw.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.frozen:
	default:
		close(p.frozen)
	}
}

// Thaw lets connections made from now on pass again; frozen ones stay frozen.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.frozen:
		p.frozen = make(chan struct{})
	default:
	}
}

// Cut closes every open connection, both ways.
func (p *Proxy) Cut() {
	p.mu.Lock()
	conns := p.conns
	p.conns = map[net.Conn]bool{}
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

// Close stops accepting and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.lis.Close()
	p.Cut()
	return err
}
