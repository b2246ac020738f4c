#include "cli/figures.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <system_error>

#include "util/atomic_file.h"
#include "util/confined_process.h"
#include "util/error.h"
#include "util/output_encoding.h"
#include "util/path_policy.h"
#include "util/suggest.h"
#include "util/table.h"
#include "util/temp_dir.h"

namespace amdahl::cli {

namespace {

namespace fs = std::filesystem;

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "NaN"; }

// Sixteen distinct colours (Tableau's 10 and 6 of its light tints), so that a chart's bars and
// lines keep theirs up to 16 series.
std::string palette() {
  static const char* const kColours[] = {
      "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
      "#9c755f", "#bab0ac", "#1f3a93", "#8cd17d", "#b6992d", "#d37295", "#499894", "#86bcb6"};
  std::string out;
  for (std::size_t i = 0; i < std::size(kColours); ++i)
    out += fmt::format("set linetype {} lc rgb \"{}\" lw 1\n", i + 1, kColours[i]);
  out += fmt::format("set linetype cycle {}\n", std::size(kColours));
  return out;
}

// Every string a script holds is a gnuplot_string (util/output_encoding.h): a single-quoted
// literal, where gnuplot substitutes no backquote and no macro, of printable text. The files
// are named './NAME...': gnuplot reads a file name that starts with '<' as a command to run,
// and an output that starts with '|' as a command to write to.
std::string quoted_file(const std::string& name, const char* ext) {
  return gnuplot_string("./" + name + ext);
}

// The lines every script starts and ends with: SVG, then the same plot as PNG. The CSV's first
// line names its columns (autotitle columnheader consumes it); every title is in the script.
std::string header(const std::string& name, const std::string& title) {
  return fmt::format(
      "# Drawn by amdahl from the CSV beside this script; re-run it with gnuplot in its folder.\n"
      "set encoding utf8\n"
      "set datafile separator \",\"\n"
      "set datafile missing \"NaN\"\n"
      "set key autotitle columnheader\n"
      "set terminal svg size 900,480 dynamic noenhanced font \"sans,12\" background \"white\"\n"
      "set output {svg}\n"
      "set title {title}\n"
      "set key outside right top\n"
      "set grid ytics lc rgb \"#dddddd\"\n"
      "{palette}",
      fmt::arg("svg", quoted_file(name, ".svg")), fmt::arg("title", gnuplot_string(title)),
      fmt::arg("palette", palette()));
}

std::string footer(const std::string& name) {
  return fmt::format(
      "set terminal pngcairo size 900,480 noenhanced font \"sans,10\" background \"white\"\n"
      "set output {}\n"
      "replot\n",
      quoted_file(name, ".png"));
}

// "plot './NAME.csv' using C1 STYLE title 'T1', '' using C2 ..." over the columns 2.. of the
// CSV, one clause per title: `using(column)` gives a clause's using spec.
template <class Using>
std::string plot_columns(const std::string& name, const std::vector<std::string>& titles,
                         Using using_spec, const std::string& style) {
  std::string out = "plot ";
  for (std::size_t i = 0; i < titles.size(); ++i)
    out +=
        fmt::format("{}{} using {}{} title {}", i ? ", " : "", i ? "''" : quoted_file(name, ".csv"),
                    using_spec(i + 2), style, gnuplot_string(titles[i]));
  return out;
}

// A name in a figure's CSV: gnuplot's reader takes a quoted field with a comma whole but
// misreads a doubled quote ("a""b") and shifts the row's numbers, so '"' is written \x22 (the
// escape printable uses); the script, not the CSV, gives gnuplot every title and label.
std::string csv_label(const std::string& name) {
  std::string out;
  for (const char c : name) out += c == '"' ? std::string("\\x22") : std::string(1, c);
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string csv_of(const Table& t) {
  std::ostringstream os;
  t.print_csv(os);
  return os.str();
}

// A figure of `data` whose script is `body` between the common header and footer.
Figure make_figure(std::string name, std::string title, const Table& data,
                   const std::string& body) {
  Figure f;
  f.name = std::move(name);
  f.title = std::move(title);
  f.csv = csv_of(data);
  f.script = header(f.name, f.title) + body + footer(f.name);
  return f;
}

}  // namespace

Figure stacked_bars(std::string name, std::string title, const std::vector<std::string>& rows,
                    const std::vector<std::string>& columns,
                    const std::vector<std::vector<double>>& shares, const std::string& y_label) {
  std::vector<std::string> head{"row"};
  for (const std::string& c : columns) head.push_back(csv_label(c));
  Table t(head);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> line{csv_label(rows[r])};
    for (std::size_t c = 0; c < columns.size(); ++c) line.push_back(number(shares[r][c]));
    t.add(line);
  }
  // The bars' labels, at x = 0, 1, ... (a histogram's rows), are in the script too.
  std::string labels;
  for (std::size_t r = 0; r < rows.size(); ++r)
    labels += fmt::format("{}{} {}", r ? ", " : "", gnuplot_string(rows[r]), r);
  const std::string body = fmt::format(
      "set style data histograms\n"
      "set style histogram rowstacked\n"
      "set style fill solid 0.9 border lc rgb \"#444444\"\n"
      "set boxwidth 0.7\n"
      "set yrange [0:1]\n"
      "set ylabel {}\n"
      "set xtics ({}) rotate by -30\n"
      "{}\n",
      gnuplot_string(y_label), labels,
      plot_columns(
          name, columns, [](std::size_t c) { return std::to_string(c); }, ""));
  return make_figure(std::move(name), std::move(title), t, body);
}

Figure line_chart(std::string name, std::string title, const std::string& x_label,
                  const std::string& y_label, const std::vector<double>& x,
                  const std::vector<Series>& series, bool log_y,
                  std::optional<std::string> reference) {
  std::vector<std::string> head{csv_label(x_label)};
  for (const Series& s : series) head.push_back(csv_label(s.name));
  Table t(head);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<std::string> line{number(x[i])};
    for (const Series& s : series) line.push_back(number(i < s.y.size() ? s.y[i] : NAN));
    t.add(line);
  }
  std::string body = fmt::format("set logscale x 2\nset xlabel {}\nset ylabel {}\n",
                                 gnuplot_string(x_label), gnuplot_string(y_label));
  if (log_y) body += "set logscale y\n";
  for (std::size_t i = 0; i < series.size(); ++i)
    if (series[i].mark)
      body += fmt::format("set label {} '' at {},{} point pt 7 ps 1.6 lc {}\n", i + 1,
                          number(series[i].mark->first), number(series[i].mark->second), i + 1);
  std::vector<std::string> titles;
  for (const Series& s : series) titles.push_back(s.name);
  body += plot_columns(
      name, titles, [](std::size_t c) { return fmt::format("1:{}", c); },
      " with linespoints lw 2 pt 7 ps 0.6");
  if (reference)
    body += fmt::format(", {} with lines dt 2 lc rgb \"#888888\" title {}", *reference,
                        gnuplot_string(*reference == "x" ? "ideal" : "y = " + *reference));
  return make_figure(std::move(name), std::move(title), t, body + "\n");
}

Figure scatter(std::string name, std::string title, const std::string& x_label,
               const std::string& y_label, const std::vector<PointGroup>& groups, bool parity) {
  std::vector<std::string> head{csv_label(x_label)};
  for (const PointGroup& g : groups) head.push_back(csv_label(g.name));
  Table t(head);
  for (std::size_t k = 0; k < groups.size(); ++k)
    for (const auto& [x, y] : groups[k].points) {
      std::vector<std::string> line{number(x)};
      for (std::size_t j = 0; j < groups.size(); ++j) line.push_back(j == k ? number(y) : "NaN");
      t.add(line);
    }
  std::vector<std::string> titles;
  for (const PointGroup& g : groups) titles.push_back(g.name);
  const std::string body = fmt::format(
      "set logscale xy\nset xlabel {}\nset ylabel {}\n{}{}{}\n", gnuplot_string(x_label),
      gnuplot_string(y_label), parity ? "set size ratio -1\n" : "",
      plot_columns(
          name, titles, [](std::size_t c) { return fmt::format("1:{}", c); },
          " with points pt 7 ps 0.9"),
      parity ? ", x with lines dt 2 lc rgb \"#888888\" title 'predicted = measured'" : "");
  return make_figure(std::move(name), std::move(title), t, body);
}

RenderedFigure render(const Figure& figure) {
  RenderedFigure r;
  const auto fail = [&](std::string why) {
    r.svg.clear();
    r.png.clear();
    r.why = std::move(why);
    r.error =
        fmt::format("{}; render it with `gnuplot {}.gp` in the figures folder", r.why, figure.name);
    return r;
  };
  std::optional<TempDir> folder;  // removed with the files in it when render returns
  try {
    folder.emplace("amdahl-figure");
  } catch (const std::system_error& e) {
    return fail(fmt::format("no temporary folder ({})", e.what()));
  }
  const fs::path& dir = folder->path();
  {
    std::ofstream(dir / (figure.name + ".csv")) << figure.csv;
    std::ofstream(dir / (figure.name + ".gp")) << figure.script;
  }
  // Confined (util/confined_process.h): whatever the script held, gnuplot starts no process.
  // './' keeps a name that starts with '-' from being read as an option.
  const ConfinedRun run = run_confined("gnuplot", {"./" + figure.name + ".gp"}, dir);
  if (!run.started)
    return fail(run.failure + (run.found ? "" : "; scripts/setup installs gnuplot-nox"));
  r.svg = read_file(dir / (figure.name + ".svg"));
  r.png = read_file(dir / (figure.name + ".png"));
  if (run.exit_status != 0 || r.svg.empty() || r.png.empty())
    return fail(fmt::format("gnuplot failed on {}.gp{}", figure.name,
                            run.failure.empty() ? "" : " (" + run.failure + ")"));
  return r;
}

std::string plot_name(const std::string& file) {
  const fs::path path(file);
  if (path.extension() != ".svg" || path.stem().empty())
    throw UserError(fmt::format("--plot {}: expected a file name ending in .svg", excerpt(file)));
  // The script names the figure's files; a name gnuplot_string would change could not.
  const std::string stem = path.stem().string();
  if (printable(stem) != stem)
    throw UserError(
        fmt::format("--plot {}: the file name holds control characters or invalid "
                    "UTF-8 (shown as \\xNN)",
                    printable(file)));
  return stem;
}

namespace {

// FILE's folder/STEM + ext.
std::string beside(const std::string& file, const char* ext) {
  const fs::path path(file);
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  return (dir / (path.stem().string() + ext)).string();
}

}  // namespace

void check_plot(const std::string& file, bool force) {
  plot_name(file);
  for (const char* ext : {".svg", ".png", ".csv", ".gp"})
    check_output_file(beside(file, ext), force, "--plot");
}

void write_plot(const std::string& file, const Figure& figure, bool force) {
  if (figure.name != plot_name(file))
    throw InternalError(fmt::format("--plot {}: figure named '{}'", file, figure.name));
  check_plot(file, force);
  const RenderedFigure r = render(figure);
  std::vector<PendingFile> files{{beside(file, ".csv"), figure.csv, {}, force},
                                 {beside(file, ".gp"), figure.script, {}, force}};
  if (r.error.empty()) {
    files.push_back({beside(file, ".svg"), r.svg, {}, force});
    files.push_back({beside(file, ".png"), r.png, {}, force});
  } else {
    std::cerr << fmt::format("--plot: {}\n", r.error);
  }
  write_files_atomically(files);
  for (const auto& f : files) std::cerr << fmt::format("wrote {}\n", f.path);
}

}  // namespace amdahl::cli
