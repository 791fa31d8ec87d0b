package policy

import "strings"

// readSpec says which words of a command name what it reads. Every option
// that takes a file the command reads is listed: a file read for its
// lines (date -f, grep -f, xargs -a, find -files0-from) ends up in the
// output or its error messages, which reach the model.
type readSpec struct {
	args  string // options taking the next word as a value that is not a path
	files string // options whose value is a file it reads (grep -f, file -m)
	// pairs take two words as their value (jq --arg NAME VALUE); pairFiles
	// too, the second a file it reads (jq --rawfile NAME FILE).
	pairs, pairFiles string
	// stop: after one of these options the operands are not paths (jq --args).
	stop string
	// pattern: the first operand is a pattern, not a path (grep), unless
	// one of patOpts gave it.
	pattern bool
	patOpts string
	// recursive options make it read everything under a folder; all: it
	// always does (tree, du, rg). Then, given no path, it reads ".".
	recursive string
	all       bool
	dot       bool // given no path, it lists "." (ls)
	// follow options make a recursive read follow the symbolic links it
	// meets (grep -R, rg -L); followAll: it always does (diff -r).
	follow    string
	followAll bool
	ops       opsKind
	// assigns: operands like NAME=value are assignments, not files (awk).
	assigns bool
	// whole: options are whole words, also after a single dash (openssl -in).
	whole bool
	// extra finds files named in other ways (dd if=FILE, curl -d @FILE).
	extra func(ws []word) []word
}

// opsKind says which operands of a reading command are paths.
type opsKind uint8

const (
	opsAll   opsKind = iota
	opsNone          // operands are not files (date +%s, xargs CMD, curl URL)
	opsFirst         // only the first is (source FILE ARGS, sqlite3 DB SQL)
)

// grepArgs are grep's options that take a value.
const grepArgs = "-e --regexp -A -B -C -m -d -D --context --after-context --before-context --max-count" +
	" --include --exclude --exclude-dir --color --colour --label --binary-files --devices --directories --group-separator"

// readers are the programs that read files: those of the default allow
// list, those often added to it, and others whose reads of a secret are
// asked about even where a sandbox would let the program run.
var readers = map[string]readSpec{
	"cat":  {},
	"tac":  {args: "-s --separator"},
	"nl":   {args: "-b -d -f -h -i -l -n -s -v -w"},
	"head": {args: "-n -c --lines --bytes"},
	"tail": {args: "-n -c --lines --bytes -s --sleep-interval --pid"},
	"less": {args: "-b -h -j -p -x -y -z -P -T --pattern --tabs -# --shift", files: "-k -o -O --lesskey-file"},
	"more": {args: "-n --lines"},
	"wc":   {files: "--files0-from"},
	"file": {args: "-F -e -P --separator --exclude --parameter", files: "-m -f --magic-file --files-from"},
	"stat": {args: "-c -t --format --printf"},
	"date": {args: "-d --date -r --reference -I --iso-8601 --rfc-3339 --resolution", files: "-f --file", ops: opsNone},
	"ls": {args: "-I -w -T --ignore --hide --width --tabsize --color --format --sort --time --time-style" +
		" --quoting-style --block-size --indicator-style", recursive: "-R --recursive", follow: "-L --dereference", dot: true},
	"tree": {args: "-L -P -I -o -H -T --charset --filelimit --timefmt --sort", files: "--gitfile --infofile",
		all: true, follow: "-l"},
	"du": {args: "-d -B -t --max-depth --block-size --threshold --exclude --time-style",
		files: "-X --exclude-from --files0-from", all: true, follow: "-L --dereference"},
	"grep": {args: grepArgs, files: "-f --file --exclude-from", pattern: true, patOpts: "-e -f --regexp --file",
		recursive: "-r -R --recursive --dereference-recursive", follow: "-R --dereference-recursive"},
	"rg": {args: "-A -B -C -m -M -j -g -t -T -E --glob --iglob --type --type-not --max-count --max-columns" +
		" --threads --max-depth --color --colors --encoding --sort --sortr --type-add --pre --pre-glob" +
		" --context-separator --field-match-separator --path-separator --replace -r -e --regexp",
		files: "-f --file --ignore-file", pattern: true, patOpts: "-e -f --regexp --file", all: true,
		follow: "-L --follow"},
	"ag": {args: "-A -B -C -m -G -g --ignore --ignore-dir --depth --file-search-regex", files: "-p --path-to-ignore",
		pattern: true, all: true, follow: "-f --follow"},
	"fd":     {args: "-d -t -e -E -x -X -c -j -S --max-depth --type --extension --exclude --exec --exec-batch --color --threads --size", files: "--ignore-file", pattern: true, all: true, follow: "-L --follow"},
	"sort":   {args: "-k -t -S -T --key --field-separator --buffer-size --temporary-directory --parallel -o --output", files: "--files0-from"},
	"uniq":   {args: "-f -s -w --skip-fields --skip-chars --check-chars"},
	"cut":    {args: "-b -c -d -f --bytes --characters --delimiter --fields --output-delimiter"},
	"base64": {args: "-w --wrap"}, "base32": {args: "-w --wrap"}, "basenc": {args: "-w --wrap"},
	"xxd":     {args: "-c -g -l -n -o -s -C --cols --groupsize --len --name --seek"},
	"hexdump": {args: "-e -n -s", files: "-f"}, "hd": {args: "-e -n -s", files: "-f"},
	"od":      {args: "-A -j -N -S -t -w --address-radix --skip-bytes --read-bytes --strings --format --width"},
	"strings": {args: "-n -t -e --bytes --radix --encoding"},
	"md5sum":  {}, "sha1sum": {}, "sha256sum": {}, "sha512sum": {}, "shasum": {args: "-a --algorithm"},
	"cksum": {}, "b2sum": {}, "md5": {}, "sum": {},
	"diff": {args: "-U -C -W -I -x -X --unified --context --width --ignore-matching-lines --exclude --label",
		files: "-X --exclude-from --from-file --to-file", recursive: "-r --recursive", followAll: true},
	"cmp":    {args: "-i -n --ignore-initial --bytes"},
	"comm":   {},
	"join":   {args: "-a -e -o -t -v -1 -2"},
	"paste":  {args: "-d --delimiters"},
	"column": {args: "-c -s -o -t -N -R -E -W"},
	"fold":   {args: "-w --width"},
	"rev":    {}, "pr": {args: "-h -l -w -o -N"}, "fmt": {args: "-w -p"}, "expand": {args: "-t"}, "unexpand": {args: "-t"},
	"shuf": {args: "-n -o --head-count --output --random-source"},
	"bat":  {args: "-l -H -r -m --language --highlight-line --line-range --map-syntax --theme --style --tabs --wrap"},
	"jq": {args: "--indent --tab -L", pairs: "--arg --argjson", pairFiles: "--slurpfile --rawfile", files: "-f --from-file",
		stop: "--args --jsonargs", pattern: true, patOpts: "-f --from-file"},
	"yq":  {args: "-o -p -I --output-format --input-format --indent", files: "--from-file", pattern: true, patOpts: "--from-file"},
	"sed": {args: "-l --line-length", files: "-f --file", pattern: true, patOpts: "-e --expression -f --file"},
	"awk": {args: "-F -v --field-separator --assign", files: "-f --file -E --exec -i --include",
		pattern: true, patOpts: "-f --file -E --exec", assigns: true},
	"xargs": {args: "-n -I -P -L -d -E -s --max-args --max-procs --max-lines --delimiter",
		files: "-a --arg-file", ops: opsNone},
	"tar": {args: "-C --directory -b -H --format --owner --group --mode --mtime --exclude --transform --xform" +
		" -I --use-compress-program --index-file -f --file -V --label -g --listed-incremental -K --starting-file" +
		" -N --newer --newer-mtime --strip-components --blocking-factor --record-size",
		files: "-T --files-from -X --exclude-from", all: true, follow: "-h --dereference"},
	"source": {ops: opsFirst}, ".": {ops: opsFirst},
	"sqlite3": {args: "-cmd -separator -newline -nullvalue", ops: opsFirst},
	"wget": {args: "-O -o -a -P -U -t -T -w -e --output-document --output-file --append-output --directory-prefix" +
		" --user-agent --tries --timeout --wait --execute --header --user --password",
		files: "-i --input-file --post-file --body-file --load-cookies --config", ops: opsNone},
	"curl":       {ops: opsNone, extra: curlFiles},
	"dd":         {ops: opsNone, extra: ddFiles},
	"openssl":    {args: "-out -passout -passin -md -cipher -pass", files: "-in -inkey -kfile -CAfile -cert -key", whole: true, ops: opsNone},
	"ssh-keygen": {args: "-b -t -C -N -P -n -O -I -V -z -Z -a -E -m -r -s -D -w -Y -M -T -G -S -J -j -K -R -F", files: "-f", ops: opsNone},
	"gpg":        {args: "-r -u -o --recipient --local-user --output --homedir"},
	"zip":        {args: "-x -i -b -n -t -tt -P -O --password --out", recursive: "-r -R", followAll: true},
	"vim":        {args: "-c -S -u -i -T --cmd"}, "vi": {args: "-c -S -u -i -T --cmd"},
	"nvim": {args: "-c -S -u -i --cmd"}, "view": {args: "-c -S -u -i -T --cmd"},
	"nano": {args: "-Y -T -r --syntax --tabsize --fill"}, "emacs": {args: "-l --load --eval -f --funcall"},
	"micro": {},
}

func init() {
	for alias, name := range map[string]string{"egrep": "grep", "fgrep": "grep", "zgrep": "grep",
		"zcat": "cat", "bzcat": "cat", "xzcat": "cat", "lzcat": "cat", "zstdcat": "cat", "zless": "less",
		"zmore": "more", "most": "more", "pg": "more", "fdfind": "fd", "gawk": "awk", "mawk": "awk",
		"nawk": "awk", "gsed": "sed", "gtar": "tar", "bsdtar": "tar", "gzip": "cat", "gunzip": "cat",
		"bzip2": "cat", "bunzip2": "cat", "xz": "cat", "unxz": "cat", "zstd": "cat", "unzstd": "cat",
		"lz4": "cat", "gpg2": "gpg"} {
		readers[alias] = readers[name]
	}
	r := readers["grep"]
	r.all = true
	readers["rgrep"] = r
}

// ddFiles: if=FILE is what dd reads.
func ddFiles(ws []word) []word {
	var out []word
	for _, w := range ws {
		if v, ok := strings.CutPrefix(w.text, "if="); ok {
			f := w
			f.text = v
			out = append(out, f)
		}
	}
	return out
}

// curlFiles are the files curl sends or reads its settings from: -d @FILE
// and its kin, -F name=@FILE or name=<FILE, -T FILE, -K FILE, -H @FILE, and
// -b FILE (a cookie file, when no "=" says it is cookies themselves).
func curlFiles(ws []word) []word {
	var out []word
	for i := 0; i+1 < len(ws); i++ {
		opt, v := ws[i].text, ws[i+1]
		switch {
		case hasField("-d --data --data-binary --data-ascii --data-urlencode --json -H --header", opt):
			if _, f, ok := strings.Cut(v.text, "@"); ok && (strings.HasPrefix(v.text, "@") || opt == "--data-urlencode") {
				v.text = f
				out = append(out, v)
			}
		case hasField("-F --form", opt):
			if j := strings.IndexAny(v.text, "@<"); j > 0 && strings.Contains(v.text[:j], "=") {
				v.text, _, _ = strings.Cut(v.text[j+1:], ";")
				out = append(out, v)
			}
		case hasField("-T --upload-file -K --config", opt),
			hasField("-b --cookie", opt) && !strings.Contains(v.text, "="):
			out = append(out, v)
		default:
			continue
		}
		i++
	}
	return out
}
