package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// state is what a helper records of itself so that the next helper for the
// same root can end its commands if it died without doing so (SIGKILL).
type state struct {
	Pid      int            `json:"pid"`
	Start    uint64         `json:"start"` // the helper's own start time
	Tag      string         `json:"tag"`   // the prefix of every command's tag
	Sessions map[int]uint64 `json:"sessions"`
	// Cgroup is the folder of the commands' cgroups (Linux), which holds
	// even what left the tag and the session behind.
	Cgroup string `json:"cgroup,omitempty"`
}

// StateDir is the folder of one root's state files: one per live helper,
// so that helpers of several editor windows never write the same file.
func StateDir(base, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "termhelper", "run", hex.EncodeToString(sum[:8]))
}

// EnableState makes the manager record its commands in dir and ends the
// leftovers of dead helpers found there. It returns how many processes it
// ended.
func (m *Manager) EnableState(dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	killed := reapDead(dir)
	m.mu.Lock()
	m.stateFile = filepath.Join(dir, strconv.Itoa(os.Getpid())+".json")
	m.mu.Unlock()
	m.saveState()
	go m.saver()
	return killed, nil
}

// markDirty asks for the state file to be rewritten soon. Writes are
// coalesced: on Linux the helper's tag, written at start, already finds
// every command; the pids are for systems without a process table to
// search.
func (m *Manager) markDirty() {
	select {
	case m.dirty <- struct{}{}:
	default:
	}
}

func (m *Manager) saver() {
	defer close(m.saverDone)
	for {
		select {
		case <-m.dirty:
			m.saveState()
			// A pause that coalesces writes, which a stop cuts short:
			// Close waits for the saver.
			select {
			case <-time.After(100 * time.Millisecond):
			case <-m.stopSaver:
				return
			}
		case <-m.stopSaver:
			return
		}
	}
}

func reapDead(dir string) int {
	entries, _ := os.ReadDir(dir)
	killed := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var st state
		if json.Unmarshal(data, &st) != nil || st.Tag == "" {
			os.Remove(path)
			continue
		}
		if start, ok := platform.StartTime(st.Pid); ok && start == st.Start && st.Pid != os.Getpid() {
			continue // that helper is alive and owns its commands
		}
		killed += platform.KillCgroup(st.Cgroup)
		killed += platform.KillLeftovers(st.Tag+"-", st.Sessions)
		os.Remove(path)
	}
	return killed
}

// saveState rewrites this helper's state file (atomically: write, rename).
func (m *Manager) saveState() {
	m.mu.Lock()
	path := m.stateFile
	if path == "" {
		m.mu.Unlock()
		return
	}
	var pids []int
	for _, s := range m.sessions {
		select {
		case <-s.done:
		default:
			pids = append(pids, s.proc.Pid)
		}
	}
	m.mu.Unlock()
	// The start times come from /proc, read outside the lock.
	st := state{Pid: os.Getpid(), Tag: m.tagBase, Sessions: map[int]uint64{}, Cgroup: platform.CgroupDir()}
	st.Start, _ = platform.StartTime(st.Pid)
	for _, pid := range pids {
		if start, ok := platform.StartTime(pid); ok {
			st.Sessions[pid] = start
		}
	}
	data, _ := json.Marshal(st)
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	tmp := path + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil {
		os.Rename(tmp, path)
	}
}

// removeState stops the saver and deletes the state file once every
// command has ended.
func (m *Manager) removeState() {
	m.mu.Lock()
	path := m.stateFile
	m.mu.Unlock()
	if path == "" {
		return
	}
	m.stopOnce.Do(func() { close(m.stopSaver) })
	<-m.saverDone
	os.Remove(path)
}
