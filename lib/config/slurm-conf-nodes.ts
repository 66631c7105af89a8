/**
 * The nodes and partitions of a slurm.conf as slurmctld builds them when it
 * starts: each NodeName line's list expanded by Slurm's hostlist (the
 * core's, with the emulated release's rules), `NodeName=DEFAULT` and
 * `PartitionName=DEFAULT` values carried to the lines after them, and each
 * partition's Nodes= resolved as nodespec_to_hostlist does (ALL, NodeSet
 * names, node lists; made unique) and checked against the nodes.
 *
 * What slurmctld refuses there it refuses with fatal(): it does not start,
 * and every command then fails to reach it. Those refusals are problems
 * with the file and line of the record, its log lines Slurm's own.
 */
import { native, type NativeDiagnostic, type NativeParsedSlurmConf } from '../native/binding.js';

type SlurmConfRecord = NativeParsedSlurmConf['records'][number];

export interface SlurmConfNode {
  name: string;
  cpus?: number;
  realMemory?: number;
  features: string[];
}

export interface SlurmConfPartition {
  name: string;
  /** Its nodes in the order of the cluster's node table (slurm.conf's order), each once. */
  nodes: string[];
  default: boolean;
  maxTime?: string;
  defaultTime?: string;
}

export interface SlurmConfNodes {
  nodes: SlurmConfNode[];
  partitions: SlurmConfPartition[];
  /** What makes slurmctld stop at its start (its fatal(), severity error), with the record's file and line. */
  problems: NativeDiagnostic[];
  /** What read_config.c's NodeName handler refuses while it parses: every command stops on the file. */
  parseProblems: NativeDiagnostic[];
}

/** Keys a NodeName=DEFAULT line may not set (_parse_nodename): each names one node. */
const NOT_DEFAULTS = ['NodeHostname', 'BcastAddr', 'NodeAddr'];

/** The most hosts one node list may stand for here: plugstack emulates every node it names. */
export const NODE_LIST_LIMIT = 100_000;

const isDefault = (name: string) => name.toUpperCase() === 'DEFAULT';
const number = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);

/** The record's fields, over the DEFAULT line's before it (a field given again replaces the default). */
function fieldsOf(r: SlurmConfRecord, defaults: Record<string, string>): Record<string, string> {
  return { ...defaults, ...Object.fromEntries(r.fields.map((f) => [f.key, f.value])) };
}

/** slurmctld's fatal() over the record: its text, the lines it logged before, and what plugstack adds to say why. */
function fatal(r: SlurmConfRecord, code: string, message: string, log: { level: string; text: string }[], why = ''): NativeDiagnostic {
  return {
    kind: 'diagnostic',
    severity: 'error',
    code,
    message: `slurmctld stops at its start: ${message}${why}`,
    file: r.file,
    line: r.line,
    slurmLog: [...log, { level: 'fatal', text: message }],
  };
}

export function slurmConfNodes(records: SlurmConfRecord[], slurmVersion: string): SlurmConfNodes {
  const problems: NativeDiagnostic[] = [];
  const parseProblems: NativeDiagnostic[] = [];
  const refuseLine = (r: SlurmConfRecord, message: string, log: { level: string; text: string }) =>
    parseProblems.push({ kind: 'diagnostic', severity: 'error', code: 'SLURM_CONF_BAD_NODE_LINE', message, file: r.file, line: r.line, slurmLog: [log] });
  const expand = (list: string) => native().expandHostlist(list, slurmVersion, NODE_LIST_LIMIT);
  const tooMany = (r: SlurmConfRecord, list: string, count: number) =>
    problems.push({
      kind: 'diagnostic',
      severity: 'warning',
      code: 'SLURM_CONF_TOO_MANY_NODES',
      message: `${list} names ${count} hosts; plugstack emulates at most ${NODE_LIST_LIMIT} in one list`,
      file: r.file,
      line: r.line,
      slurmLog: [],
    });

  // The node table, in slurm.conf's order (expand_nodeline_info). Each line's
  // lists are made in Slurm's order: NodeAddr (the names when not given),
  // NodeName, BcastAddr, NodeHostname (the names when not given).
  const nodes: SlurmConfNode[] = [];
  const seen = new Set<string>();
  const singles = new Set<string>();
  let nodeDefaults: Record<string, string> = {};
  for (const r of records) {
    if (r.kind !== 'NodeName') continue;
    const fields = fieldsOf(r, nodeDefaults);
    if (isDefault(r.name)) {
      const named = NOT_DEFAULTS.find((k) => r.fields.some((f) => f.key === k));
      if (named) {
        refuseLine(r, `${named} is not allowed on a NodeName=DEFAULT line`, { level: 'error', text: `${named} not allowed with NodeName=DEFAULT` });
        continue;
      }
      nodeDefaults = fields;
      continue;
    }
    if (r.name.toUpperCase() === 'ALL') {
      refuseLine(r, `NodeName=${r.name}: ALL is a reserved word`, { level: 'fatal', text: `'${r.name}' is a reserved word disallowed for use with NodeName` });
      continue;
    }
    const lists: [string, string | undefined][] = [
      ['NodeAddr', fields.NodeAddr ?? r.name],
      ['NodeName', r.name],
      ['BcastAddr', fields.BcastAddr],
      ['NodeHostname', fields.NodeHostname ?? r.name],
    ];
    const refused = lists.find(([, list]) => list !== undefined && !expand(list).ok);
    if (refused) {
      const [label, list] = refused;
      problems.push(
        fatal(
          r,
          'SLURM_CONF_BAD_NODE_LIST',
          `Unable to create ${label} list from ${list}`,
          expand(list!).log.map((text) => ({ level: 'error', text })),
          ` (Slurm ${slurmVersion}'s hostlist refuses it)`,
        ),
      );
      continue;
    }
    const names = expand(r.name);
    if (names.count > NODE_LIST_LIMIT) tooMany(r, r.name, names.count);
    const repeatsSingle = names.count === 1 && singles.has(r.name);
    if (names.count === 1) singles.add(r.name);
    const cpus = number(fields.CPUs ?? fields.Procs);
    const realMemory = number(fields.RealMemory);
    const features = (fields.Features ?? fields.Feature ?? '').split(',').filter((f) => f !== '');
    for (const name of names.hosts) {
      if (seen.has(name)) {
        // Two lines of one single name meet in node_conf.c's check; any other
        // overlap first in read_config.c's (both releases, observed).
        const text = repeatsSingle ? `Duplicated NodeHostName ${name} in config file` : `Duplicated NodeName ${name} in the config file`;
        problems.push(fatal(r, 'SLURM_CONF_DUPLICATE_NODE', text, []));
        break;
      }
      seen.add(name);
      nodes.push({ name, ...(cpus !== undefined ? { cpus } : {}), ...(realMemory !== undefined ? { realMemory } : {}), features });
    }
  }

  const nodeSets = new Map<string, { nodes?: string; feature?: string }>();
  for (const r of records) {
    if (r.kind !== 'NodeSet') continue;
    const fields = fieldsOf(r, {});
    nodeSets.set(r.name, { ...(fields.Nodes !== undefined ? { nodes: fields.Nodes } : {}), ...(fields.Feature !== undefined ? { feature: fields.Feature } : {}) });
  }

  const index = new Map(nodes.map((n, i) => [n.name, i]));
  // _find_node_record: a cluster whose only node is "localhost" answers every name with it.
  const lookup = (name: string) => index.get(name) ?? (nodes.length === 1 && nodes[0]!.name === 'localhost' ? 0 : undefined);
  const partitions: SlurmConfPartition[] = [];
  let partDefaults: Record<string, string> = {};
  for (const r of records) {
    if (r.kind !== 'PartitionName') continue;
    const fields = fieldsOf(r, partDefaults);
    if (isDefault(r.name)) {
      partDefaults = fields;
      continue;
    }
    const p: SlurmConfPartition = { name: r.name, nodes: [], default: /^(yes|up|true|1)$/i.test(fields.Default ?? '') };
    if (fields.MaxTime !== undefined) p.maxTime = fields.MaxTime;
    if (fields.DefaultTime !== undefined) p.defaultTime = fields.DefaultTime;
    partitions.push(p);
    const spec = fields.Nodes;
    // A partition without Nodes= has every node here (plugstack's reading, kept from before).
    if (spec === undefined || spec.toUpperCase() === 'ALL') {
      p.nodes = nodes.map((n) => n.name);
      continue;
    }
    const listed = expand(spec);
    if (!listed.ok) {
      problems.push(
        fatal(r, 'SLURM_CONF_BAD_NODE_LIST', `Invalid node names in partition ${r.name}`, [
          ...listed.log.map((text) => ({ level: 'error', text })),
          { level: 'error', text: `nodespec_to_hostlist: hostlist_create() error for ${spec}` },
        ], ` (Slurm ${slurmVersion}'s hostlist refuses Nodes=${spec})`),
      );
      continue;
    }
    if (listed.count > NODE_LIST_LIMIT) tooMany(r, spec, listed.count);
    // NodeSet names stand for their nodes: those with its feature, then its Nodes= list.
    const names: string[] = [];
    const sets = new Set<string>();
    for (const name of listed.hosts) {
      const set = nodeSets.get(name);
      if (set && !sets.has(name)) {
        sets.add(name);
        continue;
      }
      names.push(name);
    }
    for (const name of sets) {
      const set = nodeSets.get(name)!;
      if (set.feature !== undefined) names.push(...nodes.filter((n) => n.features.includes(set.feature!)).map((n) => n.name));
      if (set.nodes !== undefined) names.push(...(set.nodes.toUpperCase() === 'ALL' ? nodes.map((n) => n.name) : expand(set.nodes).hosts));
    }
    // 24.11's hostlist functions ("{...}") are not emulated: only the names that are nodes count.
    const functions = spec.includes('{');
    const missing = native().uniqueHosts(names).filter((n) => lookup(n) === undefined);
    if (missing.length > 0 && !functions) {
      problems.push(
        fatal(
          r,
          'SLURM_CONF_UNKNOWN_NODE',
          `Invalid node names in partition ${r.name}`,
          missing.flatMap((n) => [
            { level: 'error', text: `_find_node_record: lookup failure for node "${n}"` },
            { level: 'info', text: `build_part_bitmap: invalid node name ${n} in partition` },
          ]),
          ` (no NodeName line names ${missing.join(', ')})`,
        ),
      );
      continue;
    }
    const members = new Set(names.map(lookup).filter((i): i is number => i !== undefined));
    p.nodes = [...members].sort((a, b) => a - b).map((i) => nodes[i]!.name);
  }
  return { nodes, partitions, problems, parseProblems };
}
