// Reporting a Diagnostic as a "problem" event.
#pragma once

#include "common/diagnostic.h"
#include "common/json.h"

namespace plugstack {

// Emits the Slurm log lines of d in order, then the problem itself. extra
// adds fields (the plugin ref, the hook, an rc...).
void reportProblem(const Diagnostic& d, json::Object extra = {});

json::Object diagnosticToJson(const Diagnostic& d);

}  // namespace plugstack
