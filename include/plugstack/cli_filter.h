/*
 * plugstack/cli_filter.h -- the cli_filter plugin interface.
 *
 * Part of plugstack. Slurm installs no header for cli_filter plugins (they
 * are built inside Slurm's tree); this one declares what such a plugin
 * defines and what it may call, with the names, types and linkage of Slurm
 * 22.05 and 24.11, which agree on all of it. A plugin built against it loads
 * in Slurm's srun, sbatch and salloc as well as in plugstack.
 *
 * Build a plugin with:   plugstack cc plugin.c -o cli_filter_NAME.so
 *                        (add --slurm-version 22.05 for that release)
 *
 * slurm.conf names it CliFilterPlugins=NAME (or cli_filter/NAME, a comma
 * list for several); it is found as cli_filter_NAME.so along PluginDir.
 */
#ifndef PLUGSTACK_CLI_FILTER_H
#define PLUGSTACK_CLI_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What every plugin defines (Slurm's generic plugin loader):
 *
 *   const char plugin_name[]    = "...";             any text
 *   const char plugin_type[]    = "cli_filter/NAME"; an array, not a pointer
 *   const uint32_t plugin_version = SLURM_VERSION_NUMBER;
 *
 * Unlike a SPANK plugin, a cli_filter plugin must match the release to the
 * micro version (24.11.5 is not 24.11.6). CLI_FILTER_PLUGIN (plugstack's
 * own convenience; Slurm has none) defines all three.
 */
#define CLI_FILTER_PLUGIN(name, text)                                 \
	const char plugin_name[] = text;                              \
	const char plugin_type[] = "cli_filter/" #name;               \
	const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The options of the command being run (srun, sbatch or salloc). Opaque:
 * read and change it only through the slurm_option_* functions below. */
typedef struct slurm_opt slurm_opt_t;

/*
 * The three hooks. Every one must exist, even if it does nothing: a plugin
 * missing one ends the command ("Plugin loading failed due to missing
 * symbols. Plugin is corrupted."). Slurm 20.02 and older called them
 * setup_defaults, pre_submit and post_submit; plugins with those names are
 * refused.
 *
 * setup_defaults: before the command reads its options (sbatch: twice, early
 *   is true for the pass that finds --wrap, --help and the like, then false;
 *   srun: once with early true, and not at all inside an allocation, when
 *   SLURM_JOB_ID is set; salloc: once with early false). Set defaults here;
 *   what the user gives overrides them.
 * pre_submit: after all options, before the job is submitted; offset is the
 *   heterogeneous job component (0 for an ordinary job). What is set here is
 *   what the job gets.
 *   A non-zero result from either ends the command with
 *   "<command>: error: cli_filter plugin terminated with error", exit 1.
 * post_submit: once the job (srun: the step) exists; sbatch and salloc pass
 *   NO_VAL (0xfffffffe) as stepid.
 */
extern int cli_filter_p_setup_defaults(slurm_opt_t *opt, bool early);
extern int cli_filter_p_pre_submit(slurm_opt_t *opt, int offset);
extern void cli_filter_p_post_submit(int offset, uint32_t jobid, uint32_t stepid);

/* Optional, and not declared here because plugins differ in fini's type:
 * int init(void), run when the command loads the plugin (non-zero ends the
 * command: "failed to initialize cli_filter plugin"), and fini(void), run at
 * its end. */

/*
 * The options, by long name ("ntasks", "partition", "time", ...).
 *
 * slurm_option_get: what the option's getter prints, set or not: the value
 *   ("00:10:00" for --time=10, "gres:gpu:1" for --gres=gpu:1), or its own
 *   spelling of "not set" (NULL, "unset", "invalid-context" for another
 *   command's option, a default such as "1-0" for nodes). NULL for an
 *   unknown name. Free the result with xfree().
 * slurm_option_isset: whether it was set (by the user, the environment or a
 *   plugin).
 * slurm_option_set: set it as the command would; SLURM_ERROR for an unknown
 *   name, an option this command does not have, or a value the command
 *   refuses. With early false, an option of the command's early pass is
 *   left alone and SLURM_SUCCESS returned. Some values end the command, as
 *   they would on its command line ("Invalid numeric value").
 * slurm_option_reset: back to its default; false for an unknown name.
 * slurm_option_get_next_set: the set options in Slurm's order; start with
 *   *state = 0; name and value are allocated (xfree both).
 */
extern char *slurm_option_get(slurm_opt_t *opt, const char *name);
extern bool slurm_option_isset(slurm_opt_t *opt, const char *name);
extern int slurm_option_set(slurm_opt_t *opt, const char *name, const char *value, bool early);
extern bool slurm_option_reset(slurm_opt_t *opt, const char *name);
extern bool slurm_option_get_next_set(slurm_opt_t *opt, char **name, char **value, size_t *state);

/* Slurm's allocator: what the functions above return must be released with
 * xfree(), which also sets the pointer to NULL. */
extern void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try_,
			   const char *file, int line, const char *func);
extern void slurm_xfree(void **pointer);
#define xfree(p) slurm_xfree((void **) &(p))
#define xmalloc(size) slurm_xcalloc(1, (size), true, false, __FILE__, __LINE__, __func__)

#ifdef __cplusplus
}
#endif

#endif
