// Which spank_get_item items each context allows: Slurm's validity check
// (_check_spank_item_validity) as a table.
#pragma once

#include <slurm/spank.h>

#include "rules/context.h"

namespace plugstack {

// The first verdict on an item, before the item's own logic runs.
enum class ItemGate {
  Pass,          // go on to the item's value
  NeedsJob,      // pass only if the handle has a job record, else NOT_AVAIL
  NotAvail,      // ESPANK_NOT_AVAIL
  NotRemote,     // ESPANK_NOT_REMOTE
  BadArg,        // ESPANK_BAD_ARG
};

// Number of items in enum spank_item.
constexpr int kItemCount = 32;

ItemGate itemGate(Context context, int item);

// "S_JOB_UID" ..., or nullptr for a number outside the enum.
const char* itemName(int item);

}  // namespace plugstack
