//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// answerTimeout guards every call against a hang; it is not a timing
// target.
const answerTimeout = 10 * time.Minute

// message is any JSON-RPC message from the helper.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// reply is an answer and the moment its line was read, taken before any
// decoding so that the bench's own JSON work is not counted.
type reply struct {
	msg message
	at  time.Time
}

// helper is one spawned termhelper, spoken to as a host does:
// newline-delimited JSON-RPC on its stdin and stdout.
type helper struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	started time.Time // just before the process was spawned
	exited  chan struct{}
	notes   chan message
	stderr  lockedBuffer

	wmu     sync.Mutex
	mu      sync.Mutex
	next    int
	pending map[int]chan reply
}

// spawn starts the helper with the scratch root, TMPDIR (so spill files
// stay in the run's folder) and config folder, plus extra arguments.
func spawn(e *env, args ...string) (*helper, error) {
	return spawnEnv(e, nil, args...)
}

// root is the helper's project root: the one place a sandboxed command
// may write, so the stamps the commands leave go there.
func (e *env) root() string { return filepath.Join(e.tmp, "root") }

// spawnEnv is spawn with more environment variables for the helper.
func spawnEnv(e *env, vars []string, args ...string) (*helper, error) {
	penv, pargs := e.profileArgs()
	all := append([]string{"--root", e.root(), "--framing", "ndjson"}, pargs...)
	cmd := exec.Command(e.bin, append(all, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(e.tmp, "tmp"),
		"TERMHELPER_CONFIG_DIR="+filepath.Join(e.tmp, "cfg"))
	cmd.Env = append(append(cmd.Env, penv...), vars...)
	h := &helper{cmd: cmd, exited: make(chan struct{}), notes: make(chan message, 4096),
		pending: map[int]chan reply{}}
	cmd.Stderr = &h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	read := make(chan struct{})
	go func() {
		h.readLoop(bufio.NewReaderSize(out, 1<<20))
		close(read)
	}()
	go func() {
		// Wait closes stdout: only once every answer has been read.
		<-read
		cmd.Wait()
		close(h.exited)
	}()
	return h, nil
}

func (h *helper) pid() int { return h.cmd.Process.Pid }

func (h *helper) readLoop(r *bufio.Reader) {
	for {
		line, err := r.ReadBytes('\n')
		at := time.Now()
		if len(line) > 0 {
			h.dispatch(line, at)
		}
		if err != nil {
			return
		}
	}
}

func (h *helper) dispatch(line []byte, at time.Time) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return
	}
	if m.Method != "" {
		select {
		case h.notes <- m:
		default: // nobody reads them in this section
		}
		return
	}
	id, _ := strconv.Atoi(string(m.ID))
	h.mu.Lock()
	ch := h.pending[id]
	delete(h.pending, id)
	h.mu.Unlock()
	if ch != nil {
		ch <- reply{m, at}
	}
}

// send writes a request and returns where its answer will come, and the
// moment the request was written.
func (h *helper) send(method string, params any) (<-chan reply, time.Time, error) {
	h.mu.Lock()
	h.next++
	id := h.next
	ch := make(chan reply, 1)
	h.pending[id] = ch
	h.mu.Unlock()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, time.Time{}, err
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	sent := time.Now()
	_, err = h.stdin.Write(append(b, '\n'))
	return ch, sent, err
}

// notify writes a notification.
func (h *helper) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_, err = h.stdin.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its answer. It returns the result,
// when the request was written and when the answer was read.
func (h *helper) call(method string, params any) (json.RawMessage, time.Time, time.Time, error) {
	ch, sent, err := h.send(method, params)
	if err != nil {
		return nil, sent, sent, err
	}
	r, err := h.wait(ch)
	return r.msg.Result, sent, r.at, err
}

func (h *helper) wait(ch <-chan reply) (reply, error) {
	select {
	case r := <-ch:
		if r.msg.Error != nil {
			return r, r.msg.Error
		}
		return r, nil
	case <-h.exited:
		return reply{}, fmt.Errorf("helper exited; stderr: %s", h.stderr.String())
	case <-time.After(answerTimeout):
		return reply{}, errors.New("no answer within the watchdog")
	}
}

// callInto is call with the result decoded into v.
func (h *helper) callInto(v any, method string, params any) (time.Duration, error) {
	res, sent, at, err := h.call(method, params)
	if err != nil {
		return 0, err
	}
	return at.Sub(sent), json.Unmarshal(res, v)
}

// close ends the helper the way a host does, by closing its stdin, and
// kills it if it does not exit in time.
func (h *helper) close() error {
	h.stdin.Close()
	select {
	case <-h.exited:
		return nil
	case <-time.After(30 * time.Second):
		h.cmd.Process.Kill()
		<-h.exited
		return errors.New("helper did not exit after stdin EOF")
	}
}

// runAnswer is the part of an exec/run answer the bench looks at.
type runAnswer struct {
	ExitCode       *int    `json:"exitCode"`
	SessionID      string  `json:"sessionId"`
	State          string  `json:"state"`
	Output         string  `json:"output"`
	Truncated      bool    `json:"truncated"`
	FullOutputPath *string `json:"fullOutputPath"`
	Prompt         *struct {
		Text   string `json:"text"`
		Secret bool   `json:"secret"`
	} `json:"prompt"`
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil // enough to explain a failure
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func jsonInto(raw json.RawMessage, v any) error { return json.Unmarshal(raw, v) }
