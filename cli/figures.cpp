#include "cli/figures.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

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
#include "util/error.h"
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

// The lines every script starts and ends with: SVG, then the same plot as PNG.
std::string header(const std::string& name, const std::string& title) {
  return fmt::format(
      "# {name}: {title}. Drawn by amdahl from {name}.csv; re-run with `gnuplot {name}.gp`.\n"
      "set datafile separator \",\"\n"
      "set datafile missing \"NaN\"\n"
      "set terminal svg size 900,480 dynamic noenhanced font \"sans,12\" background \"white\"\n"
      "set output \"{name}.svg\"\n"
      "set title {qtitle}\n"
      "set key outside right top\n"
      "set grid ytics lc rgb \"#dddddd\"\n"
      "{palette}",
      fmt::arg("name", name), fmt::arg("title", title), fmt::arg("qtitle", double_quoted(title)),
      fmt::arg("palette", palette()));
}

std::string footer(const std::string& name) {
  return fmt::format(
      "set terminal pngcairo size 900,480 noenhanced font \"sans,10\" background \"white\"\n"
      "set output \"{}.png\"\n"
      "replot\n",
      name);
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
  head.insert(head.end(), columns.begin(), columns.end());
  Table t(head);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> line{rows[r]};
    for (std::size_t c = 0; c < columns.size(); ++c) line.push_back(number(shares[r][c]));
    t.add(line);
  }
  const std::string body = fmt::format(
      "set style data histograms\n"
      "set style histogram rowstacked\n"
      "set style fill solid 0.9 border lc rgb \"#444444\"\n"
      "set boxwidth 0.7\n"
      "set yrange [0:1]\n"
      "set ylabel {}\n"
      "set xtics rotate by -30\n"
      "plot for [i=2:{}] \"{}.csv\" using i:xtic(1) title columnheader(i)\n",
      double_quoted(y_label), columns.size() + 1, name);
  return make_figure(std::move(name), std::move(title), t, body);
}

Figure line_chart(std::string name, std::string title, const std::string& x_label,
                  const std::string& y_label, const std::vector<double>& x,
                  const std::vector<Series>& series, bool log_y,
                  std::optional<std::string> reference) {
  std::vector<std::string> head{x_label};
  for (const Series& s : series) head.push_back(s.name);
  Table t(head);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<std::string> line{number(x[i])};
    for (const Series& s : series) line.push_back(number(i < s.y.size() ? s.y[i] : NAN));
    t.add(line);
  }
  std::string body = fmt::format("set logscale x 2\nset xlabel {}\nset ylabel {}\n",
                                 double_quoted(x_label), double_quoted(y_label));
  if (log_y) body += "set logscale y\n";
  for (std::size_t i = 0; i < series.size(); ++i)
    if (series[i].mark)
      body += fmt::format("set label {} \"\" at {},{} point pt 7 ps 1.6 lc {}\n", i + 1,
                          number(series[i].mark->first), number(series[i].mark->second), i + 1);
  body += fmt::format(
      "plot for [i=2:{}] \"{}.csv\" using 1:i with linespoints lw 2 pt 7 ps 0.6 title "
      "columnheader(i)",
      series.size() + 1, name);
  if (reference)
    body += fmt::format(", {} with lines dt 2 lc rgb \"#888888\" title {}", *reference,
                        double_quoted(*reference == "x" ? "ideal" : "y = " + *reference));
  return make_figure(std::move(name), std::move(title), t, body + "\n");
}

Figure scatter(std::string name, std::string title, const std::string& x_label,
               const std::string& y_label, const std::vector<PointGroup>& groups, bool parity) {
  std::vector<std::string> head{x_label};
  for (const PointGroup& g : groups) head.push_back(g.name);
  Table t(head);
  for (std::size_t k = 0; k < groups.size(); ++k)
    for (const auto& [x, y] : groups[k].points) {
      std::vector<std::string> line{number(x)};
      for (std::size_t j = 0; j < groups.size(); ++j) line.push_back(j == k ? number(y) : "NaN");
      t.add(line);
    }
  const std::string body = fmt::format(
      "set logscale xy\nset xlabel {}\nset ylabel {}\n{}"
      "plot for [i=2:{}] \"{}.csv\" using 1:i with points pt 7 ps 0.9 title columnheader(i){}\n",
      double_quoted(x_label), double_quoted(y_label), parity ? "set size ratio -1\n" : "",
      groups.size() + 1, name,
      parity ? ", x with lines dt 2 lc rgb \"#888888\" title \"predicted = measured\"" : "");
  return make_figure(std::move(name), std::move(title), t, body);
}

RenderedFigure render(const Figure& figure) {
  RenderedFigure r;
  const std::string by_hand =
      fmt::format("render it with `gnuplot {}.gp` in the figures folder", figure.name);
  std::optional<TempDir> folder;  // removed with the files in it when render returns
  try {
    folder.emplace("amdahl-figure");
  } catch (const std::system_error& e) {
    r.error = fmt::format("no temporary folder ({}); {}", e.what(), by_hand);
    return r;
  }
  const fs::path& dir = folder->path();
  {
    std::ofstream(dir / (figure.name + ".csv")) << figure.csv;
    std::ofstream(dir / (figure.name + ".gp")) << figure.script;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    // Quiet: gnuplot's warnings go nowhere; a failure shows as a missing output.
    std::FILE* null = std::freopen("/dev/null", "w", stderr);
    (void)null;
    const std::string script = figure.name + ".gp";
    execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) {
    r.error = "could not start gnuplot; " + by_hand;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    r.error = "gnuplot is not installed (scripts/setup installs gnuplot-nox); " + by_hand;
  } else {
    r.svg = read_file(dir / (figure.name + ".svg"));
    r.png = read_file(dir / (figure.name + ".png"));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || r.svg.empty() || r.png.empty())
      r.error = fmt::format("gnuplot failed on {}.gp; {}", figure.name, by_hand);
  }
  return r;
}

std::string plot_name(const std::string& file) {
  const fs::path path(file);
  if (path.extension() != ".svg" || path.stem().empty())
    throw UserError(fmt::format("--plot {}: expected a file name ending in .svg", file));
  return path.stem().string();
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
