package engine

import (
	"errors"
	"fmt"

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
// and never through a symbolic link; it never overwrites.
func (e *Engine) TrashRestore(id string) (trash.Entry, error) {
	if id == "" {
		return trash.Entry{}, errParams("field %q is required", FieldID)
	}
	if e.opts.TrashDir == "" {
		return trash.Entry{}, errParams("no trash for this root")
	}
	en, err := trash.Restore(e.opts.TrashDir, e.opts.Root, id)
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
