#pragma once
// Text from an input (a device's, system's, network's, layer's or workload's name, a label, a
// path) written out as data: one encoder per place amdahl writes text, so that no name can
// become a command, markup or a terminal escape (docs/reliability.md, "output sinks").
//
// Every encoder starts from `printable`: the text as the reader should see it, valid UTF-8
// with no control character, whatever bytes the input held.

#include <string>
#include <string_view>

namespace amdahl {

// Whether newline and tab are kept (free text of several lines) or escaped (a name, a cell).
enum class Lines { kEscaped, kKept };

// `text` with each byte a terminal or a reader would not show as itself written as \xNN: C0
// controls and DEL (ESC starts the sequences that clear or retitle a terminal; newline and tab
// kept only with Lines::kKept), C1 controls (U+0080..U+009F: CSI among them), the
// bidirectional marks, embeddings, overrides and isolates and the line and paragraph
// separators (U+061C, U+200E, U+200F, U+2028..U+202E, U+2066..U+2069: they reorder or break
// what is read, as in "Trojan Source", CVE-2021-42574), and every byte of invalid UTF-8.
// Valid printable UTF-8 is kept as it is.
std::string printable(std::string_view text, Lines lines = Lines::kEscaped);

// A gnuplot string literal: printable(text) in single quotes, each ' doubled. gnuplot does no
// backslash, backquote (`command`) or macro (@name) substitution inside single quotes, and a
// printable text holds no newline to end the command, so the literal is inert data.
std::string gnuplot_string(std::string_view text);

// A Graphviz DOT quoted ID: printable(text) in double quotes, each '"' and '\\' escaped with a
// backslash (so that no \n, \l or \N of a label's escString is read into a name).
std::string dot_string(std::string_view text);

// printable(text) with &, <, >, " and ' as HTML entities: safe in element content and in a
// quoted attribute value.
std::string html_text(std::string_view text);

// printable(text) with each character Markdown gives a meaning inline (\ ` * _ [ ] < > & | ~ #)
// escaped with a backslash: shown as written in a paragraph, a heading or a table cell, never a
// link, an image, raw HTML, emphasis or a cell break.
std::string markdown_text(std::string_view text);

// A Markdown code span of printable(text): fenced with one backtick more than the longest run
// of backticks in it (CommonMark 6.1), so that its content is shown literally.
std::string markdown_code(std::string_view text);

// A CSV field (RFC 4180): printable(text) (no raw CR, LF or other control byte), in double
// quotes with each '"' doubled when it holds a comma or a quote.
std::string csv_field(std::string_view text);

}  // namespace amdahl
