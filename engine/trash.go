package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/trash"
)

// TrashList lists what the rm shim moved to this root's trash.
func (e *Engine) TrashList() ([]trash.Entry, error) {
	if e.opts.TrashDir == "" {
		return nil, nil
	}
	return trash.List(e.opts.TrashDir)
}

// TrashRestore puts a trash entry back where it was, only inside the root
// and never through a symbolic link; it never overwrites, and never puts
// anything at a protected path (protectedPath).
func (e *Engine) TrashRestore(id string) (trash.Entry, error) {
	if id == "" {
		return trash.Entry{}, errParams("field %q is required", FieldID)
	}
	if e.opts.TrashDir == "" {
		return trash.Entry{}, errParams("no trash for this root")
	}
	en, err := trash.RestoreUnless(e.opts.TrashDir, e.opts.Root, id, e.protectedPath)
	switch {
	case errors.Is(err, trash.ErrOutside):
		return en, errParams("%v: not restored; the item stays in the trash", err)
	case errors.Is(err, trash.ErrNotFound):
		return en, errParams("no trash entry %q", id)
	case errors.Is(err, trash.ErrExists):
		return en, errParams("%v: restore refuses to overwrite", err)
	case err != nil:
		return en, fmt.Errorf("restore %s: %w", id, err)
	}
	return en, nil
}

// protectedPath tells whether path is one of the paths a confined command
// may not write (git's hooks and config, .termhelper.toml, the config's
// protect list) or inside one. The trash folder is written by the
// commands themselves and a restore is the helper's own, unconfined: a
// forged entry must not put a hook back where the sandbox refused it.
func (e *Engine) protectedPath(path string) bool {
	base, _ := e.preparedEnv()
	home, getenv := homeOf(base)
	protect := sandbox.ProtectedPaths(e.opts.Root, home, getenv)
	protect = append(protect, resolvePaths(e.opts.Config.Sandbox.Protect, e.opts.Root, home)...)
	for _, p := range protect {
		p = filepath.Clean(p)
		if path == p || strings.HasPrefix(path, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
