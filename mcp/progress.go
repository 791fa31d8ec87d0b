package mcp

import (
	"context"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// watch records the session the call waits on: progress reports show its
// last line.
func (c *callState) watch(id string) {
	c.mu.Lock()
	c.session = id
	c.mu.Unlock()
}

func (c *callState) watched() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// progress sends notifications/progress while the call waits, where the
// client sent a progress token, each with the last line the command
// showed; the returned stop ends it.
func (c *callState) progress(ctx context.Context) (stop func()) {
	token := c.req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
					Progress: float64(n) * progressEvery.Seconds(), Message: c.lastLine()})
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}

// lastLine is the last line the watched command's terminal shows, or what
// the call waits for when it has none to show.
func (c *callState) lastLine() string {
	id := c.watched()
	if id == "" {
		return "waiting for approval"
	}
	sc, err := c.eng.Screen(id)
	if err == nil {
		if lines := trimBlankRows(sc.Lines); len(lines) > 0 {
			return "session " + id + ": " + strings.TrimSpace(lines[len(lines)-1])
		}
	}
	return "session " + id + " still running"
}
