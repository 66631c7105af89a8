#include "privileges.h"

#include <grp.h>
#include <unistd.h>

namespace plugstack {

bool dropPrivileges(const JobIdentity& job, bool setEuid, PrivState* state) {
  state->savedUid = getuid();
  state->savedGid = getgid();
  int n = getgroups(0, nullptr);
  if (n < 0) return false;
  state->savedGroups.resize(static_cast<size_t>(n));
  if (n > 0 && getgroups(n, state->savedGroups.data()) < 0) return false;

  // Not root: nothing to drop.
  if (getuid() != 0) return true;
  if (setegid(job.gid) < 0) return false;
  if (setgroups(job.gids.size(), job.gids.empty() ? nullptr : job.gids.data()) < 0) return false;
  if (setEuid && seteuid(job.uid) < 0) return false;
  return true;
}

bool reclaimPrivileges(const PrivState& state) {
  if (geteuid() == state.savedUid) return true;
  if (seteuid(state.savedUid) < 0) return false;
  if (setegid(state.savedGid) < 0) return false;
  if (setgroups(state.savedGroups.size(),
                state.savedGroups.empty() ? nullptr : state.savedGroups.data()) < 0)
    return false;
  return true;
}

bool becomeUser(const JobIdentity& job, const PrivState& state) {
  if (geteuid() == state.savedUid) return true;
  if (seteuid(state.savedUid) < 0) return false;
  if (setegid(state.savedGid) < 0) return false;
  if (setregid(job.gid, job.gid) < 0) return false;
  if (setreuid(job.uid, job.uid) < 0) return false;
  return true;
}

std::vector<gid_t> groupsOf(const std::string& user, gid_t gid) {
  if (user.empty()) return {gid};
  int n = 64;
  std::vector<gid_t> groups(static_cast<size_t>(n));
  while (getgrouplist(user.c_str(), gid, groups.data(), &n) < 0)
    groups.resize(static_cast<size_t>(n));
  groups.resize(static_cast<size_t>(n));
  return groups;
}

}  // namespace plugstack
