/**
 * The host protocol at run time: every frame a host sends is checked
 * against the catalogue (native/core/protocol/messages.json, through the
 * generated table) before anything uses it, and so is every message Node
 * sends. A frame of the wrong shape, or one the role does not send, is an
 * error string here; the caller turns it into a HOST_PROTOCOL problem.
 */
import { PlugstackError } from '../errors.js';
import {
  CATALOGUE,
  PROTOCOL_VERSION,
  type HostCommand,
  type HostEvent,
  type HostRole,
  type RoleRequests,
} from './protocol.generated.js';
import { COMMAND_VALIDATORS, EVENT_VALIDATORS, REQUEST_VALIDATORS } from './validators.generated.js';

export * from './protocol.generated.js';

/** Who may speak the protocol: a host in its role, or the zygote that forks them (zygote.ts). */
export type ProcessRole = HostRole | 'zygote';

type TypeSpec = string | { enum?: readonly unknown[]; array?: TypeSpec; object?: FieldSpecs; nullable?: TypeSpec; oneOf?: readonly TypeSpec[] };
type FieldSpecs = Readonly<Record<string, TypeSpec>>;
/** Returns what is wrong with a value, or undefined. */
type Check = (value: unknown, where: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const describe = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? 'a long string' : JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
};

const primitives: Record<string, Check> = {
  string: (v, w) => (typeof v === 'string' ? undefined : `${w} must be a string, not ${describe(v)}`),
  int: (v, w) => (Number.isSafeInteger(v) ? undefined : `${w} must be an integer, not ${describe(v)}`),
  uint: (v, w) => (Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : `${w} must be a non-negative integer, not ${describe(v)}`),
  number: (v, w) => (typeof v === 'number' && Number.isFinite(v) ? undefined : `${w} must be a number, not ${describe(v)}`),
  bool: (v, w) => (typeof v === 'boolean' ? undefined : `${w} must be true or false, not ${describe(v)}`),
  any: () => undefined,
};

const named = new Map<string, Check>();

function compile(spec: TypeSpec): Check {
  if (typeof spec === 'string') {
    const p = primitives[spec];
    if (p) return p;
    // A shared type, compiled on first use (types may refer to each other).
    return (v, w) => {
      let c = named.get(spec);
      if (!c) {
        const shared = (CATALOGUE.types as Record<string, TypeSpec>)[spec];
        if (shared === undefined) throw new Error(`protocol catalogue: unknown type ${spec}`);
        c = compile(shared);
        named.set(spec, c);
      }
      return c(v, w);
    };
  }
  if (spec.enum) {
    const allowed = new Set(spec.enum);
    return (v, w) => (allowed.has(v) ? undefined : `${w} must be one of ${[...allowed].join(', ')}, not ${describe(v)}`);
  }
  if (spec.array) {
    const item = compile(spec.array);
    return (v, w) => {
      if (!Array.isArray(v)) return `${w} must be an array, not ${describe(v)}`;
      for (let i = 0; i < v.length; i++) {
        const e = item(v[i], `${w}[${i}]`);
        if (e) return e;
      }
      return undefined;
    };
  }
  if (spec.nullable) {
    const inner = compile(spec.nullable);
    return (v, w) => (v === null ? undefined : inner(v, w));
  }
  if (spec.oneOf) {
    const options = spec.oneOf.map(compile);
    return (v, w) => (options.some((c) => c(v, w) === undefined) ? undefined : `${w} has the wrong type (${describe(v)})`);
  }
  if (spec.object) return compileObject(spec.object);
  throw new Error(`protocol catalogue: bad type ${JSON.stringify(spec)}`);
}

function compileObject(fields: FieldSpecs, ignore: readonly string[] = []): Check {
  const entries = Object.entries(fields).map(([name, type]) => {
    const optional = name.endsWith('?');
    return { key: optional ? name.slice(0, -1) : name, optional, check: compile(type) };
  });
  const known = new Set([...entries.map((e) => e.key), ...ignore]);
  return (v, w) => {
    if (!isObject(v)) return `${w} must be an object, not ${describe(v)}`;
    for (const { key, optional, check } of entries) {
      if (!(key in v) || v[key] === undefined) {
        if (optional) continue;
        return `${w}.${key} is missing`;
      }
      const e = check(v[key], `${w}.${key}`);
      if (e) return e;
    }
    for (const key of Object.keys(v)) if (!known.has(key)) return `${w} has an unknown field "${key}"`;
    return undefined;
  };
}

/** Whether a message is well formed: a yes or no, generated from the catalogue (validators.generated.ts). */
type Valid = (value: unknown) => boolean;

interface MessageTable {
  roles: readonly string[] | 'all';
  check: Check;
  valid: Valid;
}

type MessageSpecs = Record<string, { roles: readonly string[] | string; fields: FieldSpecs }>;

/**
 * A message's checks: its generated validator, which every message goes
 * through, and the checks that say what is wrong with one it refuses,
 * compiled the first time a message of its kind is seen (a command line
 * that runs one srun meets a few of the catalogue's messages).
 */
function messageTable(messages: MessageSpecs, validators: Readonly<Record<string, Valid>>): { get(t: string): MessageTable | undefined } {
  const compiled = new Map<string, MessageTable>();
  return {
    get(t) {
      let m = compiled.get(t);
      if (m) return m;
      const spec = Object.hasOwn(messages, t) ? messages[t] : undefined;
      const valid = Object.hasOwn(validators, t) ? validators[t] : undefined;
      if (!spec || !valid) return undefined;
      m = {
        roles: spec.roles === 'all' ? 'all' : (spec.roles as readonly string[]),
        check: compileObject(spec.fields, ['t']),
        valid,
      };
      compiled.set(t, m);
      return m;
    },
  };
}

const eventTable = messageTable(CATALOGUE.events as unknown as MessageSpecs, EVENT_VALIDATORS);
const commandTable = messageTable(CATALOGUE.commands as unknown as MessageSpecs, COMMAND_VALIDATORS);
const stackRequest = (CATALOGUE.types.stackRequest as { object: FieldSpecs }).object;
const requestSpecs = CATALOGUE.requests as Record<string, FieldSpecs>;
const requestChecks = new Map<string, Check>();
/** A role's request check, compiled on first use. */
function requestCheck(role: string): Check | undefined {
  let c = requestChecks.get(role);
  if (!c && Object.hasOwn(requestSpecs, role)) {
    c = compileObject({ ...stackRequest, ...requestSpecs[role] });
    requestChecks.set(role, c);
  }
  return c;
}

/** What is wrong with one event a host of this role sent, or undefined when it is fine. */
export function eventError(role: ProcessRole, value: unknown): string | undefined {
  if (!isObject(value)) return `an event must be an object, not ${describe(value)}`;
  const t = value.t;
  const m = typeof t === 'string' ? eventTable.get(t) : undefined;
  if (!m) return `unknown event type ${describe(t)}`;
  if (m.roles !== 'all' && !m.roles.includes(role)) return `a ${role} host does not send "${t}" events`;
  return m.valid(value) ? undefined : (m.check(value, t as string) ?? `${t as string} is malformed`);
}

/**
 * Both verdicts on an event of a known type: the generated validator's and
 * the checks' (what is wrong with it, or undefined). They must agree; a
 * test holds them to it.
 */
export function eventVerdicts(value: Record<string, unknown> & { t: string }): { valid: boolean; error: string | undefined } | undefined {
  const m = eventTable.get(value.t);
  return m && { valid: m.valid(value), error: m.check(value, value.t) };
}

/** Both verdicts on a role's request, as eventVerdicts gives them for an event; a test holds them to agree. */
export function requestVerdicts(role: HostRole, value: unknown): { valid: boolean; error: string | undefined } {
  return { valid: REQUEST_VALIDATORS[role]!(value), error: requestCheck(role)!(value, `${role} request`) };
}

/** What is wrong with a host's hello, or undefined: the first frame of every host. */
export function helloError(role: ProcessRole, event: HostEvent): string | undefined {
  if (event.t !== 'hello') return `the first event is "${event.t}", not "hello"`;
  if (event.protocol !== PROTOCOL_VERSION) return `the host speaks protocol ${event.protocol}, this package ${PROTOCOL_VERSION}`;
  if (event.role !== role) return `the host plays "${event.role}", not "${role}"`;
  return undefined;
}

/**
 * A message Node is about to send: a role's request, or a command. A wrong
 * one is a plugstack bug, thrown before it reaches the host.
 */
export function checkRequest<R extends HostRole>(role: R, request: RoleRequests[R]): RoleRequests[R] {
  // The generated validator answers first; the checks say what is wrong.
  if (Object.hasOwn(REQUEST_VALIDATORS, role) && REQUEST_VALIDATORS[role]!(request)) return request;
  const check = requestCheck(role);
  const e = check ? check(request, `${role} request`) : `unknown role ${role}`;
  if (e) throw new PlugstackError('HOST_PROTOCOL', `plugstack built a malformed ${role} request: ${e}`);
  return request;
}

export function checkCommand(role: ProcessRole, command: HostCommand): HostCommand {
  const m = commandTable.get(command.t);
  const e = !m
    ? `unknown command ${command.t}`
    : m.roles !== 'all' && !m.roles.includes(role)
      ? `a ${role} host takes no "${command.t}" command`
      : m.valid(command)
        ? undefined
        : (m.check(command, command.t) ?? `${command.t} is malformed`);
  if (e) throw new PlugstackError('HOST_PROTOCOL', `plugstack built a malformed command: ${e}`);
  return command;
}
