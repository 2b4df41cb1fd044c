// Text that others wrote (product feedback, report details, appeal messages, a copy's last
// output) printed to an operator's or a builder's terminal. A terminal obeys the control bytes in
// what it prints: ESC [2J clears the screen, OSC 8 turns words into a link to anywhere, a bare CR
// rewrites the line just printed. So every such text goes through terminalSafe on its way out.
// It lives here, the one layer both the cli and the ops commands may import; it does no I/O.

/**
 * Whole escape sequences, removed with their parameters so none of their text is left to read:
 * CSI (ESC [ … final), OSC/DCS/SOS/PM/APC strings (ESC ] P X ^ _ … ended by BEL or ESC \), the
 * 8-bit CSI (U+009B) and 8-bit strings (U+0090, U+0098, U+009D-U+009F, ended by BEL or U+009C),
 * and two-byte escapes (ESC and one more character, such as ESC c that resets the terminal).
 */
const sequences =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x9b[0-?]*[ -/]*[@-~]|[\x90\x98\x9d-\x9f][^\x07\x1b\x9c]*(?:\x07|\x9c|\x1b\\)|\x1b[ -/]*[0-~]/g;

/** What is left of C0 (but \t and \n), DEL and C1, such as a lone ESC or an unended string's opener. */
const controls = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Unicode's bidirectional controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069): a
 * terminal that lays out right-to-left text obeys them, so "Trojan Source" text can print its
 * words in another order than they are stored (CVE-2021-42574): an appeal that reads as one thing
 * and says another. Nobody's feedback needs them in a terminal.
 */
const bidiControls = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The text with every terminal control gone: only \n and \t of C0 stay, nothing of C1, no bidi control. */
export function terminalSafe(text: string): string {
  return text.replace(sequences, '').replace(controls, '').replace(bidiControls, '');
}
