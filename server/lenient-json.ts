/**
 * For the choice `newtonsoft-json` only: JSON read the way Newtonsoft.Json's JsonTextReader reads it, as
 * the production backend does (ASP.NET Core's Newtonsoft input formatter): strings in single or double
 * quotes, `//` and block comments, property names without quotes (letters, digits, `_`, `$`), and
 * whatever follows the first complete value is ignored. Values themselves (bare words, NaN) are not
 * relaxed. Bounded: nesting is capped so hostile input cannot exhaust the stack.
 */

export type LenientResult = { ok: true; value: unknown } | { ok: false; error: string };

const MAX_DEPTH = 256;

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.pos}`);
  }

  skipSpaceAndComments(): void {
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\uFEFF') {
        this.pos += 1;
      } else if (ch === '/' && this.text[this.pos + 1] === '/') {
        const end = this.text.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.text.length : end + 1;
      } else if (ch === '/' && this.text[this.pos + 1] === '*') {
        const end = this.text.indexOf('*/', this.pos + 2);
        if (end < 0) this.fail('unterminated comment');
        this.pos = end + 2;
      } else {
        return;
      }
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail('nesting too deep');
    this.skipSpaceAndComments();
    const ch = this.text[this.pos];
    if (ch === '{') return this.object(depth);
    if (ch === '[') return this.array(depth);
    if (ch === '"' || ch === "'") return this.string(ch);
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return this.number();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail(ch === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(ch)}`);
  }

  object(depth: number): Record<string, unknown> {
    this.pos += 1;
    const out: Record<string, unknown> = {};
    this.skipSpaceAndComments();
    if (this.text[this.pos] === '}') {
      this.pos += 1;
      return out;
    }
    for (;;) {
      this.skipSpaceAndComments();
      const ch = this.text[this.pos];
      let name: string;
      if (ch === '"' || ch === "'") name = this.string(ch);
      else {
        const m = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.pos, this.pos + 256));
        if (!m) this.fail('expected a property name');
        name = m[0];
        this.pos += name.length;
      }
      this.skipSpaceAndComments();
      if (this.text[this.pos] !== ':') this.fail('expected ":"');
      this.pos += 1;
      out[name] = this.value(depth + 1);
      this.skipSpaceAndComments();
      const next = this.text[this.pos];
      this.pos += 1;
      if (next === '}') return out;
      if (next !== ',') this.fail('expected "," or "}"');
    }
  }

  array(depth: number): unknown[] {
    this.pos += 1;
    const out: unknown[] = [];
    this.skipSpaceAndComments();
    if (this.text[this.pos] === ']') {
      this.pos += 1;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.skipSpaceAndComments();
      const next = this.text[this.pos];
      this.pos += 1;
      if (next === ']') return out;
      if (next !== ',') this.fail('expected "," or "]"');
    }
  }

  string(quote: string): string {
    let out = '';
    this.pos += 1;
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) this.fail('unterminated string');
      this.pos += 1;
      if (ch === quote) return out;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const esc = this.text[this.pos];
      this.pos += 1;
      const simple: Record<string, string> = { '"': '"', "'": "'", '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (esc !== undefined && simple[esc] !== undefined) out += simple[esc];
      else if (esc === 'u' && /^[0-9A-Fa-f]{4}$/.test(this.text.slice(this.pos, this.pos + 4))) {
        out += String.fromCharCode(parseInt(this.text.slice(this.pos, this.pos + 4), 16));
        this.pos += 4;
      } else this.fail('bad escape');
    }
  }

  number(): number {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!m) this.fail('bad number');
    this.pos += m[0].length;
    return Number(m[0]);
  }
}

export function parseLenientJson(text: string): LenientResult {
  const reader = new Reader(text);
  try {
    reader.skipSpaceAndComments();
    if (reader.pos >= text.length) return { ok: false, error: 'empty JSON body' };
    return { ok: true, value: reader.value(0) };
  } catch (e) {
    return { ok: false, error: `malformed JSON: ${(e as Error).message}` };
  }
}
