#pragma once
// Loading systems from YAML. Every file is parsed on its own against its schema; all
// violations are collected and thrown as one ConfigError ("file:line:col: key: rule (got)").

#include <string>
#include <vector>

#include "hw/system.h"

namespace amdahl::hw {

// The shipped catalog: hw/catalog/ in the source tree, or $AMDAHL_CATALOG when set.
std::string catalog_dir();

// Catalog system names (files in catalog/systems without .yaml), sorted.
std::vector<std::string> catalog_system_names();

// Where `include:`, `efficiency_from:` and `measured_runs:` may lead (util/path_policy.h):
// inside the folder of the file the user named (a system or device file) and below it, or
// inside the catalog, or a folder of allow_path (--allow-path DIR). A path that resolves
// (symbolic links followed) anywhere else is an error naming it, before anything is read, so a
// system file cannot make amdahl read and quote /etc/passwd. The catalog's own systems are
// the tool's and may name their measured runs anywhere (shared/data).

// `name_or_path` is a catalog name ("minsky") or a path to a system YAML file.
// Throws UserError for an unknown name (listing the catalog) or a missing file.
SystemSpec load_system(const std::string& name_or_path);

// One device or link file on its own (the instance name is left empty).
DeviceSpec load_device_file(const std::string& path);
LinkSpec load_link_file(const std::string& path);
// A catalog link name ("nvlink1-x2", a file in catalog/links without .yaml) or a link file;
// an unknown name is a UserError listing the catalog's links.
LinkSpec load_link(const std::string& name_or_path);
// Catalog link names, sorted.
std::vector<std::string> catalog_link_names();

}  // namespace amdahl::hw
