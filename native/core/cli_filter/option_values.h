// What slurm_option_get prints for an option, and what slurm_option_set
// makes of a value: the getters and setters of Slurm's slurm_opt.c, as data
// where Slurm's rule is data.
//
//   - Unset: each option's own spelling per command and release (NULL,
//     "unset", "invalid-context", a default number, a formatted NO_VAL, the
//     working directory), from rules/cli_option_unset.inc, which
//     scripts/gen-cli-option-unset.py asked of the real 22.05 client.
//   - Set: by the getter's kind (rules/builtin_options_table.inc): a string
//     as given, a flag as "set", an integer in decimal, megabytes with a unit
//     ("1G"), a duration as [days-]hh:mm:ss; and the custom getters that
//     normalise what they were given (nodes "2" or "1-3", exclusive,
//     oversubscribe, gres "gres:gpu:1", begin and deadline as local
//     times), and -v/-Q counting. Other custom getters show the value as
//     given.
#pragma once

#include <optional>
#include <string>

#include "rules/builtin_checks.h"
#include "rules/builtin_options.h"
#include "rules/slurm_version.h"

namespace plugstack {

using OptionValue = std::optional<std::string>;  // nullopt is the getter's NULL

// The getter's answer for an option nobody set.
OptionValue unsetOptionValue(const BuiltinOption& option, Command command,
                             const SlurmVersion& version);

struct OptionSetOutcome {
  bool ok = false;
  OptionValue shown;  // what the getter prints from now on
  // Slurm's message when the setter refuses the value; status 1 when the
  // setter itself ends the command (parse_int's exit(1)), 0 when it only
  // returns SLURM_ERROR.
  std::optional<BuiltinValueError> error;
};

// What of the site's slurm.conf a setter reads.
struct OptionSite {
  // SelectTypeParameters has MULTIPLE_SHARING_GRES_PJ (24.11's
  // --gres-flags=one-task-per-sharing needs it).
  bool multipleSharingGres = false;
};

// The option's setter for this command given arg (NULL for a flag); current
// is what the getter printed before (verbose counts up from it).
OptionSetOutcome setOptionValue(const BuiltinOption& option, Command command,
                                const SlurmVersion& version, const char* arg,
                                const OptionValue& current, const OptionSite& site = {});

// A setter that also clears another option's value (its getter then
// prints the unset value; the other option stays set): srun's --mem clears
// --mem-per-cpu, which it takes to come from the environment. The field
// cleared, or nullptr.
const char* fieldClearedBySetter(const BuiltinOption& option, Command command);

// Slurm's mins2time_str: "UNLIMITED", "hh:mm:ss" or "d-hh:mm:ss".
std::string minutesText(long minutes);

// --profile as Slurm keeps it (acct_gather_profile_from_string) and prints
// it (acct_gather_profile_to_string): "None", or the chosen ones of
// "Energy,Lustre,Network,Task"; nullopt for a value naming none.
std::optional<std::string> acctGatherProfileText(const std::string& arg);

}  // namespace plugstack
