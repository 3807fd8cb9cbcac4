/**
 * Text shown to a person on a terminal is inert: control characters an upstream, a path or a
 * stored row may carry (`ESC [2J` clears the screen, `ESC ]0;…BEL` retitles the window, C1 `CSI`
 * does the same in one byte) are printed as visible escapes (`\x1b`, `\u009b`) instead of being
 * obeyed, and a line break cannot split a one-line message. Tab stays. Used by every printer of
 * terminal text (errors, `status`, `export --wait` progress, `query`'s table); JSON and CSV output
 * are data, left byte-exact.
 */

/** C0 controls but tab, DEL, and C1 controls. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
/** The same, but line feeds stay: for text of several lines. */
const CONTROL_BUT_LINE_FEED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

function visible(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  const hex = code.toString(16).padStart(2, '0');
  return code < 0x80 ? `\\x${hex}` : `\\u00${hex}`;
}

/** One line of inert text: every control character, line breaks included, made visible. */
export function inertLine(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Inert text of several lines: control characters made visible, line feeds kept. */
export function inertLines(text: string): string {
  return text.replace(CONTROL_BUT_LINE_FEED, visible);
}
