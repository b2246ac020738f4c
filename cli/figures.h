#pragma once
// Figures of amdahl's reports (report, sweep --plot): the CSV behind each, the gnuplot script
// that draws it from that CSV, and its SVG and PNG. gnuplot (Debian's gnuplot-nox, installed
// by scripts/setup) renders without a display, writes SVG and PNG from one script, and the
// script stays beside the figure as plain text a user can restyle and re-run
// (`gnuplot NAME.gp` in the figure's folder).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amdahl::cli {

struct Figure {
  std::string name;    // file stem: "classes_train"
  std::string title;   // shown above the figure
  std::string csv;     // NAME.csv, the data it plots
  std::string script;  // NAME.gp: reads NAME.csv, writes NAME.svg and NAME.png
};

// One line of a line chart: y per x (x ascending; NaN where the line has no point).
struct Series {
  std::string name;
  std::vector<double> y;
  std::optional<std::pair<double, double>> mark;  // a point marked on the line (x, y)
};

// Stacked bars, one bar per row, one segment per column (its share, 0..1).
Figure stacked_bars(std::string name, std::string title, const std::vector<std::string>& rows,
                    const std::vector<std::string>& columns,
                    const std::vector<std::vector<double>>& shares, const std::string& y_label);

// Lines over a shared x axis, logarithmic in x (base 2) and, when `log_y`, in y; `reference`
// draws y = reference (a dashed line: parity, or the ideal) when given.
Figure line_chart(std::string name, std::string title, const std::string& x_label,
                  const std::string& y_label, const std::vector<double>& x,
                  const std::vector<Series>& series, bool log_y,
                  std::optional<std::string> reference = std::nullopt);

// Points of several groups, logarithmic on both axes; with `parity` on square axes with the
// line y = x (predicted against measured). Each group: its name and its (x, y) points.
struct PointGroup {
  std::string name;
  std::vector<std::pair<double, double>> points;
};
Figure scatter(std::string name, std::string title, const std::string& x_label,
               const std::string& y_label, const std::vector<PointGroup>& groups,
               bool parity = true);

struct RenderedFigure {
  std::string svg;
  std::string png;
  std::string error;  // empty when rendered; else why not, and how to render it by hand
  std::string why;    // empty when rendered; else why not
};

// Runs gnuplot on the figure in a temporary folder and reads back its SVG and PNG. Never
// throws: a missing or failing gnuplot is reported in `error`.
RenderedFigure render(const Figure& figure);

// `--plot FILE.svg` of sweep and validate. plot_name: the figure's name, FILE's stem; throws
// UserError unless FILE ends in .svg. write_plot: the figure (named plot_name(FILE)) drawn and
// written beside FILE as STEM.svg, STEM.png, STEM.csv and STEM.gp, atomically (the CSV and the
// script alone, with a note on stderr, when it could not be drawn); throws UserError when one
// of the four exists and `force` is false.
std::string plot_name(const std::string& file);
// plot_name's check, and the existing files' (so a command can fail before any work).
void check_plot(const std::string& file, bool force);
void write_plot(const std::string& file, const Figure& figure, bool force);

}  // namespace amdahl::cli
