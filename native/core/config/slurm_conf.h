// slurm.conf, with the rules of Slurm's own parser (parse_config.c): a
// line is read whole, a "#" not escaped by an odd number of backslashes
// starts a comment, an odd number of backslashes at the end continues the
// line on the next one, then every "\x" becomes "x"; each line holds one
// key=value (a value with spaces in double quotes), keys in any case; a
// line key (NodeName, PartitionName, ...) takes the rest of its line as
// keys of its own; "Include FILE" reads another file (relative to the
// directory of slurm.conf; globs are refused). A key Slurm does not know, a
// value of the wrong type or anything left after the key is an error, and
// srun, sbatch and salloc stop on it ("Unable to process configuration
// file"). The file is read safely (config/safe_read.h) and includes are
// bounded, as for plugstack.conf.
#pragma once

#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "rules/slurm_version.h"

namespace plugstack {

struct SlurmConfValue {
  std::string key;  // Slurm's spelling
  std::string value;
  std::string file;
  int line = 0;
};

// One line of a line key: NodeName=node[0-3] CPUs=2 ...
struct SlurmConfRecord {
  std::string kind;  // NodeName, PartitionName, ...
  std::string name;  // its value
  std::vector<SlurmConfValue> fields;
  std::string file;
  int line = 0;
};

struct ParsedSlurmConf {
  // False when srun, sbatch or salloc would stop on the file.
  bool ok = true;
  bool missing = false;
  // Top-level keys in the order met (a key met again: the last one wins,
  // as in Slurm; array keys such as Prolog keep every value).
  std::vector<SlurmConfValue> keys;
  std::vector<SlurmConfRecord> records;
  std::vector<Diagnostic> diagnostics;
};

ParsedSlurmConf parseSlurmConf(const std::string& path, const SlurmVersion& version);

}  // namespace plugstack
