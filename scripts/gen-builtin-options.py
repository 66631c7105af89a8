#!/usr/bin/env python3
"""Regenerates native/core/rules/builtin_options_table.inc from a Slurm git checkout.

The options of srun, sbatch and salloc as Slurm's common_options table has
them, per emulated release, in the table's order. Two things use it:

  - the commands themselves: a plugin option named like one of their long
    options is refused ("Ignoring conflicting option"), and getopt_long
    needs each option's argument kind and short letter;
  - cli_filter plugins, through slurm_option_get/set/isset/reset and
    get_next_set (native/core/cli_filter/): which commands can set each
    option (a generic setter, or one for that command), for which commands
    it belongs to the early pass (slurm_option_set with early == false
    does nothing then), and how its getter prints a value, read from the
    macro that defines the getter:

      String        the value, NULL when unset (COMMON_STRING_OPTION*)
      SbatchString  "invalid-context" outside sbatch, else as String
      SrunString    "invalid-context" outside srun, else as String
      Bool          "set" or "unset" (COMMON_BOOL_OPTION)
      SrunBool      "invalid-context" outside srun, else as Bool
      Int           the number in decimal (COMMON_INT_OPTION*)
      Mbytes        megabytes with a unit suffix (COMMON_MBYTES_OPTION*)
      Time          a duration as [days-]hours:minutes:seconds
      Custom        a getter of its own (plugstack's rules for it are in
                    native/core/cli_filter/option_values.cc)
      None          no getter

and which field the getter reads (the getter's name): options that share a
getter share a value (exclusive and oversubscribe, bell and no-bell), and
whether every pass resets it (reset_each_pass: sbatch's second pass and each
het component start from the defaults for these).

Only these facts are taken from the file, nothing else of it.

usage: scripts/gen-builtin-options.py <slurm-git-dir> > native/core/rules/builtin_options_table.inc
"""
import re
import subprocess
import sys

from releases import RELEASES  # (release, Slurm tag, bit), from native/core/rules/releases.json
COMMANDS = [("srun", 1), ("sbatch", 2), ("salloc", 4)]
HAS_ARG = {"no_argument": 0, "required_argument": 1, "optional_argument": 2}
KINDS = [
    (r"COMMON_SBATCH_STRING_OPTION\w*", "SbatchString"),
    (r"COMMON_SRUN_STRING_OPTION\w*", "SrunString"),
    (r"COMMON_SRUN_BOOL_OPTION", "SrunBool"),
    (r"COMMON_BOOL_OPTION", "Bool"),
    (r"COMMON_STRING_OPTION(?:_GET_AND_RESET|_GET)?", "String"),
    (r"COMMON_INT_OPTION(?:_GET_AND_RESET|_GET)?", "Int"),
    (r"COMMON_MBYTES_OPTION(?:_GET_AND_RESET|_GET)?", "Mbytes"),
    (r"COMMON_TIME_DURATION_OPTION_GET_AND_RESET", "Time"),
]


def getter_kinds(src):
    kinds = {}
    for pattern, kind in KINDS:
        for m in re.finditer(r"^(" + pattern + r")\((\w+)", src, re.M):
            kinds.setdefault(m.group(2), kind)
    return kinds



def read_options(gitdir, tag):
    src = subprocess.run(["git", "-C", gitdir, "show", f"{tag}:src/common/slurm_opt.c"],
                         check=True, capture_output=True, text=True).stdout
    kinds = getter_kinds(src)
    fields = {}
    for m in re.finditer(r"static slurm_cli_opt_t (slurm_opt_\w+) = \{(.*?)\n\};", src, re.S):
        # Build-time choices take the branch Debian's packages are built
        # with (#ifdef WITH_SLURM_X11: x11 is an option of srun and salloc).
        body = re.sub(r"#else.*?#endif", "", m.group(2), flags=re.S)
        fields[m.group(1)] = dict(re.findall(r"\.(\w+)\s*=\s*([^,\n]+),", body))
    order = re.search(r"common_options\[\] = \{(.*?)\};", src, re.S).group(1)
    result = []
    for ident in re.findall(r"&(slurm_opt_\w+)", order):
        f = fields[ident]
        name = f.get("name", "NULL").strip()
        if name == "NULL":
            continue  # environment-only settings have no command-line name
        val = f["val"].strip()
        short = val[1] if val.startswith("'") else None
        mask = 0
        for cmd, bit in COMMANDS:
            if "set_func" in f or f"set_func_{cmd}" in f:
                mask |= bit
        early = 0
        if f.get("sbatch_early_pass", "").strip() == "true":
            early |= 2
        if f.get("srun_early_pass", "").strip() == "true":
            early |= 1
        getter = f.get("get_func", "").strip()
        field = getter[len("arg_get_"):] if getter.startswith("arg_get_") else ""
        kind = kinds.get(field, "Custom") if getter else "None"
        each_pass = f.get("reset_each_pass", "").strip() == "true"
        result.append((name.strip('"'), HAS_ARG[f["has_arg"].strip()], short, mask, early, kind, field,
                       each_pass))
    return result


def main():
    gitdir = sys.argv[1]
    rows = {}
    order = []
    for _, tag, bit in RELEASES:
        previous = None
        for key in read_options(gitdir, tag):
            if key not in rows:
                # A row only this release has goes right after the row that
                # precedes it here, so each release's own order is kept.
                at = order.index(previous) + 1 if previous is not None else 0
                order.insert(at, key)
                rows[key] = 0
            rows[key] |= bit
            previous = key
    print("// Generated by scripts/gen-builtin-options.py from Slurm's slurm_opt.c:")
    print("// the long options of srun, sbatch and salloc per release. Do not edit.")
    print("// { name, has_arg, short letter or 0, commands that can set it (1 srun, 2 sbatch,")
    print("//   4 salloc), releases (1 = 24.11, 2 = 22.05), early pass for (same bits),")
    print("//   how its getter prints a value, the field its getter reads (options with")
    print("//   the same field show the same value: exclusive and oversubscribe), whether")
    print("//   each pass of the command's option processing resets it }")
    for key in order:
        name, has_arg, short, mask, early, kind, field, each_pass = key
        letter = f"'{short}'" if short else "0"
        print(f'{{"{name}", {has_arg}, {letter}, {mask}, {rows[key]}, {early}, OptionGetter::{kind}, "{field}", '
              f'{"true" if each_pass else "false"}}},')


if __name__ == "__main__":
    main()
