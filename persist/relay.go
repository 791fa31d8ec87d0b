//go:build unix

package persist

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// Relay connects to the background helper of the hello's root, starting
// it if none answers, and copies stdin to it and its answers to stdout
// until either side ends. An error is one of meeting the helper: once
// met, the end of either side is the end of the relay.
func Relay(o RelayOptions) error {
	dir, err := Folder()
	if err != nil {
		return err
	}
	p := PlaceOf(dir, o.Hello.Root)
	if len(p.Socket) > maxSocketPath {
		return fmt.Errorf("the rendezvous socket's path %s is over %d bytes, more than a unix socket's address holds: set %s to a shorter folder", p.Socket, maxSocketPath, FolderEnv)
	}
	c, r, err := connect(p, o)
	if err != nil {
		return err
	}
	defer c.Close()
	go func() {
		io.Copy(c, o.Stdin)
		c.CloseWrite() // the host's end of input, passed on
	}()
	io.Copy(o.Stdout, r)
	return nil
}

// maxSocketPath is what every unix's sockaddr_un holds (104 on macOS and
// the BSDs, 108 on Linux), less its terminating zero.
const maxSocketPath = 103

// connect meets the helper at p; a socket nobody answers at, or a helper
// that closes before its welcome (it was ending), is met again under the
// lock, where a new one is started if need be.
func connect(p Place, o RelayOptions) (*net.UnixConn, *bufio.Reader, error) {
	if c, err := dial(p.Socket); err == nil {
		r, err := greet(c, o.Hello)
		if err == nil {
			return c, r, nil
		}
		c.Close()
		var ref *Refused
		if errors.As(err, &ref) {
			return nil, nil, err
		}
	}
	unlock, err := lock(p.Lock)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	c, err := dialOrStart(p, o.Start)
	if err != nil {
		return nil, nil, err
	}
	r, err := greet(c, o.Hello)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, r, nil
}

// dialOrStart runs under the lock: a socket that does not answer was left
// by a helper that died, and is replaced, not trusted.
func dialOrStart(p Place, start []string) (*net.UnixConn, error) {
	if c, err := dial(p.Socket); err == nil {
		return c, nil
	}
	if err := os.Remove(p.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing the stale socket %s: %w", p.Socket, err)
	}
	if err := startHelper(p, start); err != nil {
		return nil, err
	}
	return dial(p.Socket)
}

func dial(path string) (*net.UnixConn, error) {
	return net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
}

// greet sends the hello and reads the welcome.
func greet(c *net.UnixConn, h Hello) (*bufio.Reader, error) {
	c.SetDeadline(time.Now().Add(helloWait))
	defer c.SetDeadline(time.Time{})
	if err := writeLine(c, h); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	var w Welcome
	if err := readLine(r, &w); err != nil {
		return nil, fmt.Errorf("the background helper did not answer: %w", err)
	}
	if w.Error != "" {
		return nil, &Refused{w}
	}
	return r, nil
}
