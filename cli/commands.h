#pragma once
// Subcommand registration. Each command declares its options once and runs in its
// callback; errors propagate as exceptions to main.

#include <CLI/CLI.hpp>

namespace amdahl::cli {

void register_predict(CLI::App& app);
void register_breakdown(CLI::App& app);
void register_describe(CLI::App& app);
void register_graph(CLI::App& app);
void register_whatif(CLI::App& app);
void register_sweep(CLI::App& app);
void register_calibrate(CLI::App& app);
void register_validate(CLI::App& app);
void register_report(CLI::App& app);
void register_explore(CLI::App& app);

}  // namespace amdahl::cli
