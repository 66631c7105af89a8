// The outer mount namespace of a run that loads job_container plugins.
//
// Plugin code of that kind mounts and unshares as root. So that nothing it
// mounts outlives the run or is seen by the machine, Node starts one holder
// per run (plugstack-host --mount-namespace): it leaves the machine's mount
// namespace for a new one whose mounts are all private (nothing propagates
// back), says "ready" and waits until Node ends it (or dies). Every host of
// the run enters the holder's namespace first thing (PLUGSTACK_MOUNT_NS:
// /proc/<holder>/ns/mnt), before any plugin code; when the last of them
// and the holder are gone, the namespace and everything mounted in it go
// with them.
#pragma once

#include <string>

namespace plugstack {

// The holder's main: 0 when ended by a signal or a closed stdin.
int runMountNamespaceHolder();

// In a host, before anything else: enter the namespace PLUGSTACK_MOUNT_NS
// names, if any. False (with *error) when it cannot.
bool enterRunMountNamespace(std::string* error);

}  // namespace plugstack
