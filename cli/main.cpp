// amdahl: analytical performance model and simulator for deep-learning workloads.
// The thin main: declare the subcommands, run, and turn exceptions into messages and exit
// statuses (2: bad input, 70: internal error).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/allocator.h"
#include "util/error.h"
#include "util/printable_stream.h"
#include "util/suggest.h"

int main(int argc, char** argv) {
  // Names from input files reach the terminal as data, never as escape sequences.
  const amdahl::PrintableStream out_guard(std::cout), err_guard(std::cerr);
  CLI::App app{"amdahl: how long a deep-learning step takes on any system, and why"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every command");
  app.set_version_flag(
      "--version",
      std::string("amdahl ") + AMDAHL_VERSION + " (" + amdahl::allocator_description() + ")",
      "the version and the allocator it runs with");
  amdahl::cli::register_predict(app);
  amdahl::cli::register_breakdown(app);
  amdahl::cli::register_describe(app);
  amdahl::cli::register_graph(app);
  amdahl::cli::register_whatif(app);
  amdahl::cli::register_sweep(app);
  amdahl::cli::register_calibrate(app);
  amdahl::cli::register_validate(app);
  amdahl::cli::register_report(app);
  amdahl::cli::register_explore(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A mistyped command: name it and the closest one.
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
      if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
        std::cerr << "amdahl: error: unknown command '" << amdahl::excerpt(argv[1]) << "'; "
                  << amdahl::suggestion(argv[1], names) << "\n";
        return 2;
      }
    }
    std::cerr << "amdahl: error: " << amdahl::printable_message(e.what()) << "\n";
    std::cerr << "run 'amdahl --help' or 'amdahl COMMAND --help' for usage\n";
    return 2;
  } catch (const amdahl::UserError& e) {
    std::cerr << "amdahl: error: " << amdahl::printable_message(e.what()) << "\n";
    return 2;
  } catch (const amdahl::InternalError& e) {
    std::cerr << "amdahl: internal error (please report): " << amdahl::printable_message(e.what())
              << "\n";
    return 70;
  } catch (const std::exception& e) {
    std::cerr << "amdahl: internal error (please report): " << amdahl::printable_message(e.what())
              << "\n";
    return 70;
  }
  // A result that could not be written (a full disk, a closed pipe) is a failure, not exit 0.
  std::cout.flush();
  if (!std::cout) {
    const int err = errno;
    std::cerr << "amdahl: error: cannot write the output to standard output ("
              << (err ? std::strerror(err) : "write failed") << ")\n";
    return 2;
  }
  return 0;
}
