// Usage: NODE_PATH=DIR node xtcheck.js COLS ROWS RAWFILE, with @xterm/headless
// installed in DIR (a scratch folder, never the repository): what xterm.js
// makes of raw terminal output, in the sections tmuxcheck.py prints.
const { Terminal } = require('@xterm/headless');
const fs = require('fs');
// RESIZE=OFFSET:COLS:ROWS resizes the terminal after the first OFFSET bytes.
let [cols, rows, file] = process.argv.slice(2);
const t = new Terminal({ cols: +cols, rows: +rows, scrollback: 100000, allowProposedApi: true, convertEol: false });
const raw = fs.readFileSync(file);
const resize = (process.env.RESIZE || '').split(':').map(Number);
function done(fn) {
  if (resize.length < 3) return t.write(raw, fn);
  t.write(raw.subarray(0, resize[0]), () => {
    t.resize(resize[1], resize[2]);
    cols = resize[1]; rows = resize[2];
    t.write(raw.subarray(resize[0]), fn);
  });
}
done(() => {
  const b = t.buffer.active;
  const joined = [];
  let cur = '';
  for (let i = 0; i < b.length; i++) {
    const l = b.getLine(i);
    const next = b.getLine(i + 1);
    const wraps = next && next.isWrapped;
    let end = +cols;
    // A wide character that did not fit the last column left it empty:
    // that cell is no text.
    if (wraps && l.getCell(end - 1).getChars() === '' && l.getCell(end - 1).getWidth() === 1) end--;
    cur += l.translateToString(!wraps, 0, end);
    if (!(next && next.isWrapped)) { joined.push(cur.replace(/ +$/, '')); cur = ''; }
  }
  while (joined.length && joined[joined.length - 1] === '') joined.pop();
  const screen = [];
  for (let i = b.baseY; i < b.baseY + +rows; i++) screen.push(b.getLine(i).translateToString(true));
  while (screen.length && screen[screen.length - 1] === '') screen.pop();
  console.log('-- joined --\n' + joined.join('\n'));
  console.log('-- screen --\n' + screen.join('\n'));
  console.log('-- cursor --\n' + b.cursorY + ' ' + Math.min(b.cursorX, +cols - 1) + ' alt=' + (b.type === 'alternate' ? 1 : 0));
});
