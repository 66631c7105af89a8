// Signals as Slurm's commands name them (proc_args.c sig_name2num and
// sig_num2name): salloc's --kill-command and the like.
#pragma once

#include <string>

#include "rules/releases.h"

namespace plugstack {

// sig_name2num: a number (whitespace after it only), or a name of the
// release's table with or without "SIG", in any case, whitespace around it.
// 0 for anything else (Slurm's "not found").
int slurmSignalNumber(const std::string& text, const SlurmVersion& version);

// sig_num2name: the table's name of the signal, else its number.
std::string slurmSignalName(int signal, const SlurmVersion& version);

}  // namespace plugstack
