// Why a plugin file did not load, as a stable problem code and our words,
// for every plugin kind.
#pragma once

namespace plugstack {

struct LoadFailureText {
  int err;           // ESLURM_PLUGIN_*
  const char* code;  // the problem code
  const char* what;  // plugstack's explanation
};

const LoadFailureText& loadFailure(int err);

}  // namespace plugstack
