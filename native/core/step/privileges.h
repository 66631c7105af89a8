// Changing identity the way slurmstepd does (privileges.c and mgr.c).
//
// slurmstepd runs as root and moves between root and the job's user with
// the *effective* ids only, so that it can come back: user_init runs with
// the user's effective uid/gid and groups, task_post_fork and task_exit as
// root, and each task child drops all three ids (real, effective, saved)
// right before it waits for the barrier. When the host is not root nothing
// changes, as in Slurm (and the job must then be the host's own user).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace plugstack {

struct JobIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> gids;  // supplementary groups of the job
};

// What drop() saved, for reclaim(): Slurm's struct priv_state.
struct PrivState {
  uid_t savedUid = 0;
  gid_t savedGid = 0;
  std::vector<gid_t> savedGroups;
};

// drop_privileges(): egid and groups become the job's, and with setEuid the
// euid too. Returns false (errno set) on failure.
bool dropPrivileges(const JobIdentity& job, bool setEuid, PrivState* state);

// reclaim_privileges(): back to the saved ids and groups. Like Slurm, does
// nothing when the euid already is the saved one (a root job keeps its
// group changes).
bool reclaimPrivileges(const PrivState& state);

// _become_user(): for good, in a task child: real, effective and saved ids
// become the job's.
bool becomeUser(const JobIdentity& job, const PrivState& state);

// The groups a user is in, as the credential would list them
// (getgrouplist); just {gid} when the user is unknown.
std::vector<gid_t> groupsOf(const std::string& user, gid_t gid);

}  // namespace plugstack
