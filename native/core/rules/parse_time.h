// Slurm's absolute times as its commands read and print them: parse_time
// (--begin, --deadline) and slurm_make_time_str.
#pragma once

#include <ctime>
#include <string>

namespace plugstack {

// parse_time(text, past = 0): "now[+|-count[unit]]", "today", "tomorrow",
// "midnight", "noon", "fika", "teatime", "HH:MM[:SS] [AM|PM]",
// "MMDD[YY]", "MM/DD[/YY]", "MM.DD[.YY]", "YYYY-MM-DD[THH:MM[:SS]]",
// "uts<seconds>", and combinations of a date and a time. A time without a
// date is the next such time; a date without a year the next such date.
// 0 for anything else (Slurm's "invalid").
time_t parseSlurmTime(const std::string& text, time_t now);

// slurm_make_time_str: "Unknown" for 0, else %FT%T in local time, or the
// strftime format of SLURM_TIME_FORMAT.
std::string slurmTimeText(time_t when);

}  // namespace plugstack
