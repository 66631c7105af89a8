// A host file as srun, salloc and sbatch read one (Slurm's
// slurm_read_hostfile): --nodefile's, SLURM_HOSTFILE's, or a -w that names
// a file (it has a '/'). One or more host names a line, comma-separated;
// '#' starts a comment ("\#" is a '#'); "name*N" is N times the name; a
// line that starts with anything but a letter or a digit is refused.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace plugstack {

// Slurm's NO_VAL: read every host of the file.
constexpr int kReadAllHosts = static_cast<int>(0xfffffffe);

struct HostFile {
  // The hosts, in the file's order, repeats kept; at most `limit` of them.
  std::vector<std::string> hosts;
  // Why the file was not taken: the lines Slurm logs (error()), in order.
  // Empty when it was.
  std::vector<std::string> errors;
  bool ok() const { return errors.empty(); }
};

// Reads path up to `limit` hosts; fewer than `limit` is refused ("Too few
// NodeNames in Slurm Hostfile"), as is a file with none. perHost (24.11):
// the reading stops at the host that reaches the limit and a "name*N" is
// capped to it (so a limit of 0, what --nodefile is read with, keeps a
// "name*N" from adding any host); otherwise (22.05) whole lines are read
// and the reading stops only after a line that ends on the limit exactly.
HostFile readHostFile(const std::string& path, int limit, bool perHost);

// The hosts as Slurm hands the list on (hostlist_ranged_string):
// "node[0,0,1]" for node0,node0,node1.
std::string rangedHosts(const std::vector<std::string>& hosts);

}  // namespace plugstack
