#include "calibrate/allreduce_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "calibrate/deepbench.h"
#include "util/csv_table.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::calibrate {
namespace {

namespace fs = std::filesystem;

// The host CPU of every box: the catalog's one Xeon of that era, standing in for each
// dataset's own (deepbench_datasets.csv's cpu_model, cited in the system's source).
constexpr const char* kHostDeviceFile = "xeon-e5-2698v4.yaml";

std::string gbs(double bytes_per_s) { return fmt::format("{:.4f} GB/s", bytes_per_s / 1e9); }
std::string us(double s) { return fmt::format("{:.3f} us", s * 1e6); }

std::string errors_text(const ErrorStats& train, const ErrorStats& held) {
  std::string s = fmt::format("{} fitted", train.count);
  if (held.count > 0)
    s += fmt::format(", {} held out: median {}, p90 {}", held.count, percent(held.median_abs),
                     percent(held.p90_abs));
  return s;
}

std::string header(const std::string& cited_dir) {
  return fmt::format(
      "# Written by `amdahl calibrate allreduce --dir {} -o hw/catalog --force`\n"
      "# (docs/calibration-collectives.md): rerun it rather than edit; a ctest checks the files.\n",
      cited_dir);
}

// The name of a box's link file in links/: "deepbench-<slug>-<what>.yaml".
std::string link_file(const std::string& slug, const std::string& what) {
  return fmt::format("deepbench-{}-{}.yaml", slug, what);
}

// "switch", "socket", "qpi": the level's name as file names have it.
std::string level_file_name(BoxLevel l) {
  std::string s(box_level_name(l));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string_view level_hop(BoxLevel l) {
  switch (l) {
    case BoxLevel::kSwitch:
      return "between the two GPUs behind one PCIe switch";
    case BoxLevel::kSocket:
      return "between the switches of one socket, through its root complex";
    case BoxLevel::kQpi:
      return "between the two sockets";
  }
  return "?";
}

// One dataset's row of deepbench_datasets.csv, for the systems' source.
struct DatasetInfo {
  std::string workbook, cpu, board;
};

DatasetInfo dataset_info(const CsvTable& t, const std::string& dataset) {
  const std::size_t name = t.column("dataset");
  std::vector<std::string> names;
  for (std::size_t r = 0; r < t.size(); ++r) {
    names.push_back(t.cell(r, name));
    if (names.back() != dataset) continue;
    DatasetInfo i;
    i.workbook = fmt::format("{} {} at {}, {}", t.cell(r, t.column("repo")),
                             t.cell(r, t.column("path")), t.cell(r, t.column("read_at_commit")),
                             t.cell(r, t.column("last_modified_date")));
    i.cpu = t.cell(r, t.column("cpu_model"));
    i.board = t.cell(r, t.column("motherboard"));
    return i;
  }
  throw UserError(fmt::format("{}: no row for all-reduce dataset '{}'; {}", t.path(), dataset,
                              suggestion(dataset, names)));
}

// A fitted link file: a ring hop of `bytes_per_s` whose whole latency is the system's step.
std::string fitted_link_text(const std::string& header_text, const std::string& name,
                             const std::string& source, const std::string& note,
                             double bytes_per_s) {
  std::string t = header_text;
  t += fmt::format("name: {}\n", double_quoted(name));
  t += fmt::format("source: {}\n", double_quoted(source));
  if (!note.empty()) t += fmt::format("note: {}\n", double_quoted(note));
  t += fmt::format("bandwidth: {}\n", gbs(bytes_per_s));
  t += "latency: 0 us            # the whole step latency is the system's step_latency (fitted)\n";
  t += fmt::format("p2p: {}\n", gbs(bytes_per_s));
  t += "calibrated: true\n";
  return t;
}

std::string link_text(const std::string& cited_csv, const AllReduceFit& f, BoxLevel level,
                      const std::string& header_text) {
  const auto i = static_cast<std::size_t>(level);
  const double b = f.level_bytes_per_s[i];
  std::vector<std::string> shared;  // the other levels of this bandwidth
  for (std::size_t j = 0; j < f.level_bytes_per_s.size(); ++j)
    if (j != i && f.level_bytes_per_s[j] == b)
      shared.emplace_back(box_level_name(static_cast<BoxLevel>(j)));
  // The switch and socket levels are on a GPU's way to its host; the sockets' link is not.
  const std::string note =
      level == BoxLevel::kQpi
          ? ""
          : "copies to and from the host run at this bandwidth too: DeepBench measured none apart";
  return fitted_link_text(
      header_text,
      fmt::format("DeepBench {} box, {} level (ring hop)", f.dataset, box_level_name(level)),
      fmt::format("fitted by `amdahl calibrate allreduce` to {}, dataset {}, one-node NCCL rows "
                  "({}): the bandwidth of a ring hop {}{}",
                  cited_csv, f.dataset, errors_text(f.train, f.held_out), level_hop(level),
                  shared.empty() ? ""
                                 : fmt::format("; one bandwidth with the {} level (fitted as "
                                               "one, or no row crosses it)",
                                               join(shared))),
      note, b);
}

std::string network_text(const std::string& cited_csv, const AllReduceFit& f,
                         const std::string& header_text) {
  const NetworkFit& n = *f.network;
  return fitted_link_text(
      header_text, fmt::format("DeepBench {} network (NIC link)", f.dataset),
      fmt::format("fitted by `amdahl calibrate allreduce` to {}, dataset {}, multi-node NCCL rows "
                  "with the box's levels fixed ({}): one NIC link a node, the ring entering and "
                  "leaving each node once; the NIC is not named",
                  cited_csv, f.dataset, errors_text(n.train, n.held_out)),
      "", n.bytes_per_s);
}

// The NCCL algorithm names of the dataset's fitted rows, e.g. "NCCL 2.0".
std::string library(const AllReduceFit& f) {
  std::vector<std::string> names;
  for (const auto& r : f.residuals)
    if (std::find(names.begin(), names.end(), r.row.algorithm) == names.end())
      names.push_back(r.row.algorithm);
  return join(names, ", ");
}

struct SystemText {
  std::string name, device_include, host_include, cited_csv, header;
  DatasetInfo info;
};

std::string system_text(const SystemText& x, const AllReduceFit& f, int nodes) {
  const BoxLayout box = box_layout(kMaxGpusPerNode);
  const std::string s = dataset_slug(f.dataset);
  std::string t = x.header;
  t += fmt::format("name: {}\n", x.name);
  t += fmt::format("description: {}\n",
                   double_quoted(fmt::format(
                       "DeepBench's {} all-reduce box{}: {} GPUs in a PCIe tree (pairs behind "
                       "{} switches, two a socket), ring hops fitted",
                       f.dataset, nodes > 1 ? fmt::format(", {} nodes", nodes) : "",
                       box.gpus.size(), box.switches.size())));
  t += fmt::format(
      "source: {}\n",
      double_quoted(fmt::format(
          "DeepBench {} ({}; deepbench_datasets.csv): host {}, board {}; the catalog's {} "
          "stands in for the host CPU. The PCIe tree is an ASSUMPTION (the workbooks do not give "
          "it; calibrate/allreduce_fit.h); its links are fitted to {}",
          f.dataset, x.info.workbook, x.info.cpu, x.info.board.empty() ? "not named" : x.info.board,
          fs::path(x.host_include).stem().string(), x.cited_csv)));
  t += "devices:\n";
  for (const std::string& c : box.cpus)
    t += fmt::format("  - {{name: {}, include: {}}}\n", c, x.host_include);
  for (const std::string& g : box.gpus)
    t += fmt::format("  - {{name: {}, include: {}}}\n", g, x.device_include);
  t += "switches:\n";
  for (const std::string& w : box.switches)
    t += fmt::format("  - {{name: {}, model: PCIe switch}}\n", w);
  t += "links:\n";
  for (const BoxLink& l : box.links)
    t += fmt::format("  - {{name: {}-{}, from: {}, to: {}, include: ../links/{}}}\n", l.from, l.to,
                     l.from, l.to, link_file(s, level_file_name(l.level)));
  const bool cluster = nodes > 1;
  t += "runtime:\n";
  t += "  name: framework not measured\n";
  t += "  source: \"ASSUMPTION: DeepBench timed the all-reduce alone (no framework ran on this "
       "box); 10 us of host time per op\"\n";
  t += "  dispatch_per_op: 10 us\n";
  t += "  calibrated: false\n";
  t += "  collectives:\n";
  t += fmt::format("    library: {}\n", double_quoted(library(f)));
  t += "    algorithm: ring\n";
  t += fmt::format("    step_latency: {}\n",
                   us(cluster ? f.network->step_latency_s : f.step_latency_s));
  t += fmt::format("    source: {}\n",
                   double_quoted(fmt::format(
                       "fitted by `amdahl calibrate allreduce` to {}, dataset {}, {} NCCL rows "
                       "({}): the time of one ring step",
                       x.cited_csv, f.dataset, cluster ? "multi-node" : "one-node",
                       cluster ? errors_text(f.network->train, f.network->held_out)
                               : errors_text(f.train, f.held_out))));
  t += fmt::format("default_device: {}\n", box.gpus.front());
  if (cluster) {
    t += fmt::format("nodes: {}\n", nodes);
    t += fmt::format("network: {{include: ../links/{}, attach: [{}]}}\n", link_file(s, "network"),
                     kBoxNicVertex);
  }
  return t;
}

// `to` relative to `from_dir`, both made absolute first.
std::string relative(const std::string& to, const fs::path& from_dir) {
  return fs::absolute(to)
      .lexically_normal()
      .lexically_relative(fs::absolute(from_dir).lexically_normal())
      .generic_string();
}

}  // namespace

std::string dataset_slug(const std::string& dataset) {
  std::string s;
  for (const char c : dataset)
    s += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string allreduce_system_name(const std::string& dataset, bool cluster) {
  return fmt::format("deepbench-{}{}", dataset_slug(dataset), cluster ? "-cluster" : "");
}

AllReduceCatalog allreduce_catalog(const std::vector<AllReduceFit>& fits,
                                   const std::string& deepbench_dir, const std::string& catalog_dir,
                                   const std::string& out_dir) {
  const CsvTable datasets = CsvTable::read(deepbench_dir + "/deepbench_datasets.csv");
  const std::vector<std::pair<std::string, std::string>> cards = deepbench_cards(catalog_dir);
  const fs::path systems = fs::path(out_dir) / "systems";
  const std::string host = (fs::path(catalog_dir) / "devices" / kHostDeviceFile).string();
  if (!fs::exists(host))
    throw UserError(fmt::format("{}: the boxes' host device file is missing", host));
  const std::string head = header(deepbench_dir);
  const std::string cited_csv = deepbench_dir + "/deepbench_allreduce.csv";
  AllReduceCatalog out;
  for (const AllReduceFit& f : fits) {
    const auto card = std::find_if(cards.begin(), cards.end(),
                                   [&](const auto& c) { return c.first == f.dataset; });
    if (card == cards.end()) {
      out.without_device.push_back(f.dataset);
      continue;
    }
    const std::string s = dataset_slug(f.dataset);
    for (int l = 0; l < kBoxLevels; ++l) {
      const auto level = static_cast<BoxLevel>(l);
      out.files.push_back(
          {"links/" + link_file(s, level_file_name(level)), link_text(cited_csv, f, level, head)});
    }
    SystemText x{allreduce_system_name(f.dataset),
                 relative(card->second, systems),
                 relative(host, systems),
                 cited_csv,
                 head,
                 dataset_info(datasets, f.dataset)};
    out.files.push_back({fmt::format("systems/{}.yaml", x.name), system_text(x, f, 1)});
    if (!f.network) continue;
    out.files.push_back({"links/" + link_file(s, "network"), network_text(cited_csv, f, head)});
    int nodes = 1;
    for (const auto& r : f.residuals) nodes = std::max(nodes, r.row.nodes);
    x.name = allreduce_system_name(f.dataset, true);
    out.files.push_back({fmt::format("systems/{}.yaml", x.name), system_text(x, f, nodes)});
  }
  return out;
}

}  // namespace amdahl::calibrate
