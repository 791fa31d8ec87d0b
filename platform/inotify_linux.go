package platform

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// InotifyEvents calls each for every whole inotify event in buf (what a
// read of an inotify descriptor returned), with the name it carries ("":
// the watched file or folder itself).
func InotifyEvents(buf []byte, each func(ev *unix.InotifyEvent, name string)) {
	for len(buf) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[0]))
		end := min(len(buf), unix.SizeofInotifyEvent+int(ev.Len))
		each(ev, strings.TrimRight(string(buf[unix.SizeofInotifyEvent:end]), "\x00"))
		buf = buf[end:]
	}
}
