// The protocol's validators as code: one function per message and per
// shared type of native/core/protocol/messages.json, answering yes or no
// without building each field's path as it goes. gen-protocol.mjs writes
// them into lib/host/validators.generated.ts, so that they are ordinary
// code Node compiles lazily (and a command line's code cache keeps), not
// functions made with new Function when a process starts. An event a
// validator refuses goes through lib/host/protocol.ts's checks, which say
// what is wrong with it.

const PRIMITIVE_TESTS = {
  string: (x) => `typeof ${x} === 'string'`,
  int: (x) => `Number.isSafeInteger(${x})`,
  uint: (x) => `(Number.isSafeInteger(${x}) && ${x} >= 0)`,
  number: (x) => `(typeof ${x} === 'number' && Number.isFinite(${x}))`,
  bool: (x) => `typeof ${x} === 'boolean'`,
  any: () => 'true',
};

const isNamed = (spec) => typeof spec === 'string' && !PRIMITIVE_TESTS[spec];

/** Turns the catalogue's types into numbered functions (F) and constants (C, key and enum sets). */
class ValidatorWriter {
  constructor(types) {
    this.types = types;
    this.fns = [];
    this.consts = [];
    this.named = new Map();
  }

  /** The index of a function checking a whole value of this type. */
  function(spec, ignore = []) {
    if (isNamed(spec) && this.named.has(spec)) return this.named.get(spec);
    const index = this.fns.length;
    this.fns.push('');
    if (isNamed(spec)) this.named.set(spec, index);
    let body;
    if (isNamed(spec)) {
      const shared = this.types[spec];
      if (shared === undefined) throw new Error(`protocol catalogue: unknown type ${spec}`);
      body = `return ${this.test(shared, 'v')};`;
    } else if (typeof spec === 'object' && spec.object) {
      const lines = [`if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;`, 'let x;'];
      const keys = [...ignore];
      for (const [name, type] of Object.entries(spec.object)) {
        const optional = name.endsWith('?');
        const key = optional ? name.slice(0, -1) : name;
        keys.push(key);
        lines.push(`x = v[${JSON.stringify(key)}];`);
        lines.push(optional ? `if (x !== undefined && !(${this.test(type, 'x')})) return false;` : `if (x === undefined || !(${this.test(type, 'x')})) return false;`);
      }
      // Every own key must be a known field: a for-in over the keys with a
      // switch on the names (no array of keys, no set lookups per event);
      // an inherited enumerable key is not the message's, as with Object.keys.
      const cases = keys.map((key) => `case ${JSON.stringify(key)}:`).join(' ');
      lines.push(`for (const key in v) switch (key) { ${cases} continue; default: if (Object.hasOwn(v, key)) return false; }`, 'return true;');
      body = lines.join('\n  ');
    } else if (typeof spec === 'object' && spec.array) {
      body = `if (!Array.isArray(v)) return false;\n  for (let i = 0; i < v.length; i++) {\n    const x = v[i];\n    if (!(${this.test(spec.array, 'x')})) return false;\n  }\n  return true;`;
    } else body = `return ${this.test(spec, 'v')};`;
    this.fns[index] = body;
    return index;
  }

  constant(values) {
    this.consts.push(values);
    return this.consts.length - 1;
  }

  /** An expression testing the value in variable x. */
  test(spec, x) {
    if (typeof spec === 'string') return PRIMITIVE_TESTS[spec] ? PRIMITIVE_TESTS[spec](x) : `F[${this.function(spec)}]!(${x})`;
    if (spec.enum) return `C[${this.constant(spec.enum)}]!.has(${x})`;
    if (spec.nullable) return `(${x} === null || ${this.test(spec.nullable, x)})`;
    if (spec.oneOf) return `(${spec.oneOf.map((o) => this.test(o, x)).join(' || ')})`;
    if (spec.array || spec.object) return `F[${this.function(spec)}]!(${x})`;
    throw new Error(`protocol catalogue: bad type ${JSON.stringify(spec)}`);
  }
}

/** The TypeScript of lib/host/validators.generated.ts. */
export function generateValidators(catalogue, header) {
  const w = new ValidatorWriter(catalogue.types);
  const table = (messages) =>
    Object.entries(messages)
      .filter(([name]) => name !== 'doc')
      .map(([name, m]) => [name, w.function({ object: m.fields }, ['t'])]);
  const events = table(catalogue.events);
  const commands = table(catalogue.commands);
  // A role's request: the fields every request has, then the role's own.
  const requests = Object.entries(catalogue.requests)
    .filter(([name]) => name !== 'doc')
    .map(([name, fields]) => [name, w.function({ object: { ...catalogue.types.stackRequest.object, ...fields } })]);
  const out = [header, '/* eslint-disable */', ''];
  out.push('type Valid = (v: any) => boolean;', '');
  out.push('/** Key sets and enum sets the validators test against. */');
  out.push(`const C: ReadonlySet<unknown>[] = [\n${w.consts.map((c) => `  new Set(${JSON.stringify(c)}),`).join('\n')}\n];`, '');
  out.push('/** One validator per message and per shared type; they call each other by index. */');
  out.push('const F: Valid[] = [');
  for (const body of w.fns) out.push(`  function (v) {\n  ${body.split('\n').join('\n  ')}\n  },`);
  out.push('];', '');
  const map = (name, doc, entries) => {
    out.push(`/** ${doc} */`);
    out.push(`export const ${name}: Readonly<Record<string, Valid>> = {\n${entries.map(([n, i]) => `  ${JSON.stringify(n)}: F[${i}]!,`).join('\n')}\n};`, '');
  };
  map('EVENT_VALIDATORS', 'Whether an event of this type is well formed (its "t" is not tested).', events);
  map('COMMAND_VALIDATORS', 'Whether a command of this type is well formed (its "t" is not tested).', commands);
  map('REQUEST_VALIDATORS', "Whether a role's request is well formed.", requests);
  return out.join('\n');
}
