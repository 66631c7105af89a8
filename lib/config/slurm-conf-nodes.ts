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
 * with the file and line of the record, its log lines Slurm's own. (The
 * NodeName lines read_config.c refuses while parsing, which stop every
 * command, are the parser's: native/core/config/slurm_conf.cc.)
 */
import { native, type NativeDiagnostic, type NativeParsedSlurmConf } from '../native/binding.js';
import { releaseRules } from '../releases.generated.js';

type SlurmConfRecord = NativeParsedSlurmConf['records'][number];
type LogLine = { level: string; text: string };

export interface SlurmConfNode {
  name: string;
  cpus?: number;
  realMemory?: number;
  features: string[];
  /** Its NodeName line (slurmctld's config record): slurmctld tries a job on the nodes of one line, then adds the next. */
  config: number;
  /** Weight= (1 when unset): lines of a lower weight are tried first. */
  weight: number;
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
  /**
   * What makes slurmctld stop at its start (its fatal(), severity error),
   * with the record's file and line; and a warning when the file names more
   * nodes than plugstack emulates.
   */
  problems: NativeDiagnostic[];
}

/** The most nodes plugstack emulates from one slurm.conf (each is a name in memory). */
export const NODE_TABLE_LIMIT = 100_000;
/** Names listed in a problem's message before "and N more". */
const NAMES_SHOWN = 10;

const isDefault = (name: string) => name.toUpperCase() === 'DEFAULT';
const number = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);
const shown = (names: string[]) =>
  names.length > NAMES_SHOWN ? `${names.slice(0, NAMES_SHOWN).join(', ')} and ${names.length - NAMES_SHOWN} more` : names.join(', ');

/**
 * A node's index in the table by its name, as _find_node_record finds it:
 * a cluster whose only node is "localhost" answers every name with it.
 */
export function nodeLookup(nodes: readonly SlurmConfNode[]): (name: string) => number | undefined {
  const index = new Map(nodes.map((n, i) => [n.name, i]));
  const onlyLocalhost = nodes.length === 1 && nodes[0]!.name === 'localhost';
  return (name) => index.get(name) ?? (onlyLocalhost ? 0 : undefined);
}

/** The record's fields, over the DEFAULT line's before it (a field given again replaces the default). */
function fieldsOf(r: SlurmConfRecord, defaults: Record<string, string>): Record<string, string> {
  return { ...defaults, ...Object.fromEntries(r.fields.map((f) => [f.key, f.value])) };
}

/** slurmctld's fatal() over the record: its text, the lines it logged before, and what plugstack adds to say why. */
function fatal(r: SlurmConfRecord, code: string, message: string, log: LogLine[], why = ''): NativeDiagnostic {
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
  const expand = (list: string, limit: number) => native().expandHostlist(list, slurmVersion, limit);
  let truncated = false;
  const tooMany = (r: SlurmConfRecord, list: string) => {
    truncated = true;
    problems.push({
      kind: 'diagnostic',
      severity: 'warning',
      code: 'SLURM_CONF_TOO_MANY_NODES',
      message: `${list}: plugstack emulates at most ${NODE_TABLE_LIMIT} nodes; the ones past them are left out`,
      file: r.file,
      line: r.line,
      slurmLog: [],
    });
  };

  // The node table, in slurm.conf's order (expand_nodeline_info). Each line's
  // lists are made in Slurm's order: NodeAddr (the names when not given),
  // NodeName, BcastAddr, NodeHostname (the names when not given).
  const nodes: SlurmConfNode[] = [];
  const seen = new Set<string>();
  const singles = new Set<string>();
  // Each NodeName line is a config record of its own.
  let configs = 0;
  // A refused NodeName line leaves nodes out that partitions may name.
  let refusedLine = false;
  let nodeDefaults: Record<string, string> = {};
  for (const r of records) {
    if (r.kind !== 'NodeName') continue;
    const fields = fieldsOf(r, nodeDefaults);
    if (isDefault(r.name)) {
      nodeDefaults = fields;
      continue;
    }
    // A Port of a range or a list is read as a bracket ("7001-7002" is [7001-7002]).
    const port = fields.Port;
    const portList = port && !port.startsWith('[') && /[-,]/.test(port) ? `[${port}]` : port;
    const lists: [string, string | undefined, string | undefined][] = [
      ['NodeAddr', fields.NodeAddr ?? r.name, fields.NodeAddr ?? r.name],
      ['NodeName', r.name, r.name],
      ['BcastAddr', fields.BcastAddr, fields.BcastAddr],
      ['NodeHostname', fields.NodeHostname ?? r.name, fields.NodeHostname ?? r.name],
      ['Port', portList, port],
    ];
    // Each of the line's lists read once (the names stand in for NodeAddr and
    // NodeHostname when those are not given); one longer than the table
    // counts as one past its limit.
    const read = new Map<string, ReturnType<typeof expand>>();
    const readList = (list: string) => read.get(list) ?? read.set(list, expand(list, NODE_TABLE_LIMIT + 1)).get(list)!;
    const refused = lists.find(([, list]) => list !== undefined && !readList(list).ok);
    if (refused) {
      const [label, list, written] = refused;
      const log = readList(list!).log.map((text) => ({ level: 'error', text }));
      problems.push(fatal(r, 'SLURM_CONF_BAD_NODE_LIST', `Unable to create ${label} list from ${written}`, log, ` (Slurm ${slurmVersion}'s hostlist refuses it)`));
      refusedLine = true;
      continue;
    }
    if (truncated) continue;
    // The lists' lengths against the names'.
    const countOf = (list: string | undefined) => (list === undefined ? 0 : readList(list).count);
    const aliases = countOf(r.name);
    const counts = releaseRules(slurmVersion).controller;
    const mismatch = (count: number, message: string, zeroAllowed: boolean) =>
      message !== '' && count !== aliases && count !== 1 && !(zeroAllowed && count === 0) ? message : undefined;
    const portCount = countOf(portList);
    const countFatal =
      mismatch(countOf(fields.NodeAddr ?? r.name), counts.nodeAddrCountFatal, false) ??
      mismatch(countOf(fields.BcastAddr), counts.bcastAddrCountFatal, true) ??
      mismatch(countOf(fields.NodeHostname ?? r.name), counts.nodeHostnameCountFatal, false) ??
      mismatch(portCount, `Port count must equal that of NodeName records or there must be no more than one (${portCount} != ${aliases})`, true);
    if (countFatal) {
      problems.push(fatal(r, 'SLURM_CONF_NODE_LIST_COUNT', countFatal, []));
      refusedLine = true;
      continue;
    }
    const room = NODE_TABLE_LIMIT - nodes.length;
    const all = readList(r.name);
    if (all.count > room) tooMany(r, r.name);
    const names = all.hosts.slice(0, room);
    // Two lines of one single name meet in node_conf.c's check; any other
    // overlap first in read_config.c's (both releases, observed).
    const repeatsSingle = all.count === 1 && singles.has(r.name);
    if (all.count === 1) singles.add(r.name);
    const cpus = number(fields.CPUs ?? fields.Procs);
    const realMemory = number(fields.RealMemory);
    const features = (fields.Features ?? fields.Feature ?? '').split(',').filter((f) => f !== '');
    const config = configs++;
    const weight = number(fields.Weight) ?? 1;
    for (const name of names) {
      if (seen.has(name)) {
        const text = repeatsSingle ? `Duplicated NodeHostName ${name} in config file` : `Duplicated NodeName ${name} in the config file`;
        problems.push(fatal(r, 'SLURM_CONF_DUPLICATE_NODE', text, []));
        break;
      }
      seen.add(name);
      nodes.push({ name, ...(cpus !== undefined ? { cpus } : {}), ...(realMemory !== undefined ? { realMemory } : {}), features, config, weight });
    }
  }

  // NodeSets by name (the first line of a name is the one nodespec_to_hostlist meets).
  const nodeSets = new Map<string, { nodes?: string; feature?: string }>();
  for (const r of records) {
    if (r.kind !== 'NodeSet' || nodeSets.has(r.name)) continue;
    const fields = fieldsOf(r, {});
    nodeSets.set(r.name, { ...(fields.Nodes !== undefined ? { nodes: fields.Nodes } : {}), ...(fields.Feature !== undefined ? { feature: fields.Feature } : {}) });
  }

  const lookup = nodeLookup(nodes);
  const allNames = () => nodes.map((n) => n.name);
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
    // A partition without Nodes= has none (slurmctld: "No nodes in partition").
    const spec = fields.Nodes;
    if (spec === undefined) continue;
    if (spec.toUpperCase() === 'ALL') {
      p.nodes = allNames();
      continue;
    }
    const listed = expand(spec, NODE_TABLE_LIMIT);
    if (!listed.ok) {
      problems.push(
        fatal(
          r,
          'SLURM_CONF_BAD_NODE_LIST',
          `Invalid node names in partition ${r.name}`,
          [...listed.log.map((text) => ({ level: 'error', text })), { level: 'error', text: `nodespec_to_hostlist: hostlist_create() error for ${spec}` }],
          ` (Slurm ${slurmVersion}'s hostlist refuses Nodes=${spec})`,
        ),
      );
      continue;
    }
    // NodeSet names stand for their nodes: those with its feature, then its Nodes= list.
    const names: string[] = [];
    const sets: string[] = [];
    for (const name of listed.hosts) {
      if (nodeSets.has(name)) {
        if (!sets.includes(name)) sets.push(name);
      } else names.push(name);
    }
    for (const name of sets) {
      const set = nodeSets.get(name)!;
      if (set.feature !== undefined) names.push(...nodes.filter((n) => n.features.includes(set.feature!)).map((n) => n.name));
      if (set.nodes !== undefined) names.push(...(set.nodes.toUpperCase() === 'ALL' ? allNames() : expand(set.nodes, NODE_TABLE_LIMIT).hosts));
    }
    // Names that are no node make slurmctld stop; not said when plugstack
    // left nodes out (a refused or cut NodeName line: the name may be one of
    // them), nor for 24.11's hostlist functions ("{...}"), which are not
    // emulated.
    const certain = !refusedLine && !truncated && !listed.overLimit && !spec.includes('{');
    const missing = certain ? native().uniqueHosts(names).filter((n) => lookup(n) === undefined) : [];
    if (missing.length > 0) {
      problems.push(
        fatal(
          r,
          'SLURM_CONF_UNKNOWN_NODE',
          `Invalid node names in partition ${r.name}`,
          missing.slice(0, 1000).flatMap((n) => [
            { level: 'error', text: `_find_node_record: lookup failure for node "${n}"` },
            { level: 'info', text: `build_part_bitmap: invalid node name ${n} in partition` },
          ]),
          ` (no NodeName line names ${shown(missing)})`,
        ),
      );
      continue;
    }
    const members = new Set(names.map(lookup).filter((i): i is number => i !== undefined));
    p.nodes = [...members].sort((a, b) => a - b).map((i) => nodes[i]!.name);
  }
  return { nodes, partitions, problems };
}
