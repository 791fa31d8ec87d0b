package cleaner_test

import (
	"fmt"

	"github.com/termhelper/termhelper/cleaner"
)

func ExampleClean() {
	raw := "\x1b[32mDownloading\x1b[0m  10%\r\x1b[32mDownloading\x1b[0m 100%\r\n" +
		"\x1b]0;title\x07\x1b[1;31merror\x1b[0m: build failed\r\n"
	fmt.Print(cleaner.Clean([]byte(raw), cleaner.Options{}).Text)
	// Output:
	// Downloading 100%
	// error: build failed
}

func ExampleCleaner_Take() {
	c := cleaner.New(cleaner.Options{})
	c.Write([]byte("Enter passphrase: "))
	fmt.Printf("%q %q\n", c.Take(false).Text, c.LastLine())
	c.Write([]byte("\r\nok\r\n"))
	fmt.Printf("%q\n", c.Take(true).Text)
	// Output:
	// "Enter passphrase:" "Enter passphrase:"
	// "ok\n"
}
