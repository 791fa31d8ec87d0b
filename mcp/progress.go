package mcp

import (
	"context"
	"sync"
	"time"
)

// progressEvery paces progress notifications during a long call.
const progressEvery = 5 * time.Second

// progress sends notifications/progress while a call waits, where the
// client sent a progress token; the returned stop ends it.
func (f *front) progress(ctx context.Context, token any) (stop func()) {
	if token == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				f.peer.Notify("notifications/progress", map[string]any{"progressToken": token,
					"progress": n * int(progressEvery/time.Second), "message": "still waiting"})
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}
