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

/**
 * The same checks as one generated function per message: a yes or no, no
 * message built on the way (the checks above build each field's path as
 * they go, for the message). Every event goes through it; only one it
 * refuses goes through the checks above, for what is wrong with it.
 */
type Valid = (value: unknown) => boolean;

const PRIMITIVE_TESTS: Record<string, (x: string) => string> = {
  string: (x) => `typeof ${x} === 'string'`,
  int: (x) => `Number.isSafeInteger(${x})`,
  uint: (x) => `(Number.isSafeInteger(${x}) && ${x} >= 0)`,
  number: (x) => `(typeof ${x} === 'number' && Number.isFinite(${x}))`,
  bool: (x) => `typeof ${x} === 'boolean'`,
  any: () => 'true',
};

/** Compiles validators; shared types become functions of their own, made once (they may refer to each other). */
class ValidatorCompiler {
  /** Generated functions by index, and the constants (enum sets, key sets) they use. */
  private readonly fns: Valid[] = [];
  private readonly consts: unknown[] = [];
  private readonly namedIndex = new Map<string, number>();

  valid(spec: TypeSpec, ignore: readonly string[] = []): Valid {
    return this.fns[this.function(spec, ignore)]!;
  }

  /** A function checking a whole value of this type: its index in fns. */
  private function(spec: TypeSpec, ignore: readonly string[] = []): number {
    if (typeof spec === 'string' && !PRIMITIVE_TESTS[spec]) {
      const known = this.namedIndex.get(spec);
      if (known !== undefined) return known;
    }
    const index = this.fns.length;
    this.fns.push(() => false);
    if (typeof spec === 'string' && !PRIMITIVE_TESTS[spec]) this.namedIndex.set(spec, index);
    let body: string;
    if (typeof spec === 'string' && !PRIMITIVE_TESTS[spec]) {
      const shared = (CATALOGUE.types as Record<string, TypeSpec>)[spec];
      if (shared === undefined) throw new Error(`protocol catalogue: unknown type ${spec}`);
      body = `return ${this.test(shared, 'v')};`;
    } else if (typeof spec === 'object' && spec.object) {
      const lines = [`if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;`, 'let x;'];
      const keys: string[] = [...ignore];
      for (const [name, type] of Object.entries(spec.object)) {
        const optional = name.endsWith('?');
        const key = optional ? name.slice(0, -1) : name;
        keys.push(key);
        lines.push(`x = v[${JSON.stringify(key)}];`);
        lines.push(optional ? `if (x !== undefined && !(${this.test(type, 'x')})) return false;` : `if (x === undefined || !(${this.test(type, 'x')})) return false;`);
      }
      const k = this.constant(new Set(keys));
      lines.push(`for (const key of Object.keys(v)) if (!C[${k}].has(key)) return false;`, 'return true;');
      body = lines.join('\n');
    } else if (typeof spec === 'object' && spec.array) {
      body = `if (!Array.isArray(v)) return false; for (let i = 0; i < v.length; i++) { const x = v[i]; if (!(${this.test(spec.array, 'x')})) return false; } return true;`;
    } else body = `return ${this.test(spec, 'v')};`;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from the catalogue, nothing else
    this.fns[index] = new Function('F', 'C', `return function valid(v) { ${body} };`)(this.fns, this.consts) as Valid;
    return index;
  }

  private constant(value: unknown): number {
    this.consts.push(value);
    return this.consts.length - 1;
  }

  /** An expression testing the value in variable x. */
  private test(spec: TypeSpec, x: string): string {
    if (typeof spec === 'string') {
      const p = PRIMITIVE_TESTS[spec];
      return p ? p(x) : `F[${this.function(spec)}](${x})`;
    }
    if (spec.enum) return `C[${this.constant(new Set(spec.enum))}].has(${x})`;
    if (spec.nullable) return `(${x} === null || ${this.test(spec.nullable, x)})`;
    if (spec.oneOf) return `(${spec.oneOf.map((o) => this.test(o, x)).join(' || ')})`;
    if (spec.array || spec.object) return `F[${this.function(spec)}](${x})`;
    throw new Error(`protocol catalogue: bad type ${JSON.stringify(spec)}`);
  }
}

const validators = new ValidatorCompiler();

interface MessageTable {
  roles: readonly string[] | 'all';
  check: Check;
  valid: Valid;
}

function messageTable(messages: Record<string, { roles: readonly string[] | string; fields: FieldSpecs }>): Map<string, MessageTable> {
  return new Map(
    Object.entries(messages).map(([t, m]) => [
      t,
      {
        roles: m.roles === 'all' ? 'all' : (m.roles as readonly string[]),
        check: compileObject(m.fields, ['t']),
        valid: validators.valid({ object: m.fields }, ['t']),
      },
    ]),
  );
}

const eventTable = messageTable(CATALOGUE.events as unknown as Record<string, { roles: readonly string[] | string; fields: FieldSpecs }>);
const commandTable = messageTable(CATALOGUE.commands as unknown as Record<string, { roles: readonly string[] | string; fields: FieldSpecs }>);
const stackRequest = (CATALOGUE.types.stackRequest as { object: FieldSpecs }).object;
const requestChecks = new Map<string, Check>(
  Object.entries(CATALOGUE.requests as Record<string, FieldSpecs>).map(([role, fields]) => [role, compileObject({ ...stackRequest, ...fields })]),
);

/** What is wrong with one event a host of this role sent, or undefined when it is fine. */
export function eventError(role: ProcessRole, value: unknown): string | undefined {
  if (!isObject(value)) return `an event must be an object, not ${describe(value)}`;
  const t = value.t;
  const m = typeof t === 'string' ? eventTable.get(t) : undefined;
  if (!m) return `unknown event type ${describe(t)}`;
  if (m.roles !== 'all' && !m.roles.includes(role)) return `a ${role} host does not send "${t}" events`;
  return m.valid(value) ? undefined : (m.check(value, t as string) ?? `${t as string} is malformed`);
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
  const e = requestChecks.get(role)?.(request, `${role} request`) ?? (requestChecks.has(role) ? undefined : `unknown role ${role}`);
  if (e) throw new PlugstackError('HOST_PROTOCOL', `plugstack built a malformed ${role} request: ${e}`);
  return request;
}

export function checkCommand(role: ProcessRole, command: HostCommand): HostCommand {
  const m = commandTable.get(command.t);
  const e = !m
    ? `unknown command ${command.t}`
    : m.roles !== 'all' && !m.roles.includes(role)
      ? `a ${role} host takes no "${command.t}" command`
      : m.check(command, command.t);
  if (e) throw new PlugstackError('HOST_PROTOCOL', `plugstack built a malformed command: ${e}`);
  return command;
}
