package printers

import (
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Style is how text output is laid out: the width to wrap to, colour, and the short answer
// alone. The zero Style is the plain output of a pipe: no wrapping, no colour, everything.
type Style struct {
	// Width wraps text to this many columns (0: no wrapping). Tables shrink their widest columns
	// and wrap cells within them; other lines are folded at word boundaries with a hanging
	// indent. Words longer than the width are never broken outside tables.
	Width int
	// Color marks verdict words with ANSI colours (only for a terminal without NO_COLOR).
	Color bool
	// Brief prints only the short answer of each command (--brief).
	Brief bool
}

var style Style

// SetStyle sets how the text printers lay out their output (the commands set it from
// --output-width, --brief, the terminal and NO_COLOR); JSON, YAML, SARIF and JUnit ignore it.
func SetStyle(s Style) { style = s }

// CurrentStyle returns the style the text printers use.
func CurrentStyle() Style { return style }

// emit writes text rendered into b to w, folded to the style's width and coloured.
func emit(w io.Writer, b []byte) error {
	_, err := w.Write([]byte(finish(string(b), style)))
	return err
}

// finish folds s to st.Width and colours its verdict words when st.Color.
func finish(s string, st Style) string {
	if st.Width <= 0 && !st.Color {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	var out strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		nl := strings.HasSuffix(l, "\n")
		l = strings.TrimSuffix(l, "\n")
		for i, f := range FoldLine(l, st.Width) {
			if i > 0 {
				out.WriteString("\n")
			}
			if st.Color {
				f = Colorize(f)
			}
			out.WriteString(f)
		}
		if nl {
			out.WriteString("\n")
		}
	}
	return out.String()
}

func width(s string) int { return utf8.RuneCountInString(s) }

// FoldLine folds one line longer than width at spaces: the continuation lines are indented two
// columns more than the line (a hanging indent). A word longer than the room left stays whole.
// width <= 0 returns the line as it is.
func FoldLine(line string, w int) []string {
	if w <= 0 || width(line) <= w {
		return []string{line}
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := strings.Repeat(" ", indent+2)
	if indent+2 > w/2 {
		hang = strings.Repeat(" ", indent)
	}
	return wrapWords(line[indent:], strings.Repeat(" ", indent), hang, w, false)
}

// wrapWords lays out the words of s (separated by runs of spaces, kept inside a line) in lines
// of at most w columns, the first line starting with first and the others with hang. A word
// longer than the room is split when hard, else left whole on its own line.
func wrapWords(s, first, hang string, w int, hard bool) []string {
	var lines []string
	cur := first
	empty := true // cur holds no word yet
	for len(s) > 0 {
		// the next separator and word
		sep := s[:len(s)-len(strings.TrimLeft(s, " "))]
		s = s[len(sep):]
		end := strings.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		word := s[:end]
		s = s[end:]
		if word == "" {
			break
		}
		if !empty && width(cur)+width(sep)+width(word) > w {
			lines = append(lines, cur)
			cur, empty = hang, true
		}
		if empty {
			sep = ""
		}
		room := w - width(cur) - width(sep)
		for hard && width(word) > room && room > 0 && empty {
			r := []rune(word)
			cut := room
			// split after a separator of the name (outbound|80||host, a.b.c, k=v) when one is
			// in the second half of the room
			for i := room; i > room/2; i-- {
				if strings.ContainsRune("|./,=:-", r[i-1]) {
					cut = i
					break
				}
			}
			lines = append(lines, cur+string(r[:cut]))
			word = string(r[cut:])
			cur = hang
			room = w - width(cur)
		}
		cur += sep + word
		empty = false
	}
	if !empty || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

// fitColumns returns the widths to wrap the columns of a table to so that it fits max columns
// with sep columns between them, or nil when it fits as it is (or max <= 0). nat are the
// columns' widths, words their longest words, heads their headers' widths (never wrapped). The widest column is narrowed first: down to its
// longest word (or min); then, when that is not enough, splitting words, down to min; then to
// 4 columns.
func fitColumns(nat, words, heads []int, sep, max, min int) []int {
	if max <= 0 || len(nat) == 0 {
		return nil
	}
	total := sep * (len(nat) - 1)
	for _, n := range nat {
		total += n
	}
	if total <= max {
		return nil
	}
	ws := append([]int(nil), nat...)
	floors := []func(i int) int{
		func(i int) int { return minInt(nat[i], maxInt(min, words[i])) },
		func(i int) int { return minInt(nat[i], maxInt(min, heads[i])) },
		func(i int) int { return minInt(nat[i], maxInt(4, heads[i])) },
	}
	for _, floor := range floors {
		for total > max {
			i := -1
			for j := range ws {
				if ws[j] > floor(j) && (i < 0 || ws[j] > ws[i]) {
					i = j
				}
			}
			if i < 0 {
				break
			}
			ws[i]--
			total--
		}
	}
	return ws
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// longestWord is the width of the longest space-separated word of s.
func longestWord(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if width(f) > n {
			n = width(f)
		}
	}
	return n
}

// wrapCell wraps a table cell to w columns: continuation lines keep the cell's own indent plus
// two columns; words longer than w are split.
func wrapCell(s string, w int) string {
	if width(s) <= w {
		return s
	}
	indent := len(s) - len(strings.TrimLeft(s, " "))
	hang := strings.Repeat(" ", indent+2)
	if indent+2 >= w {
		hang = ""
	}
	return strings.Join(wrapWords(s[indent:], strings.Repeat(" ", indent), hang, w, true), "\n")
}

// ANSI colours of the verdict words.
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

var (
	verdictWord = regexp.MustCompile(`\b(ABSENT|FAILS|FAIL|PRESENT|PASS|OK|WARN|WARNING)\b`)
	levelWord   = regexp.MustCompile(`^(\s*)(Error|Warning)\b`)
)

// Colorize marks the verdict words of a line: ABSENT, FAIL(S) and a leading Error red; PRESENT,
// PASS and OK green; WARN(ING) and a leading Warning yellow.
func Colorize(line string) string {
	line = verdictWord.ReplaceAllStringFunc(line, func(m string) string {
		return colorOf(m) + m + reset
	})
	if m := levelWord.FindStringSubmatchIndex(line); m != nil {
		word := line[m[4]:m[5]]
		line = line[:m[4]] + colorOf(word) + word + reset + line[m[5]:]
	}
	return line
}

func colorOf(word string) string {
	switch word {
	case "ABSENT", "FAIL", "FAILS", "Error":
		return red
	case "WARN", "WARNING", "Warning":
		return yellow
	}
	return green
}
