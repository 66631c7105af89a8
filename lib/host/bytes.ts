/**
 * Strings from host processes are UTF-8; a byte that is not valid UTF-8
 * arrives as the lone surrogate U+DC80+byte (see native/core/common/json.h).
 * These helpers turn such strings into the exact bytes and back.
 */

/** The exact bytes a host string stands for. */
export function hostStringToBytes(s: string): Buffer {
  const parts: Buffer[] = [];
  let run = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff) {
      if (run) parts.push(Buffer.from(run, 'utf8'));
      run = '';
      parts.push(Buffer.of(c - 0xdc00));
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      run += s[i]! + s[i + 1]!;
      i++;
    } else {
      run += s[i]!;
    }
  }
  if (run) parts.push(Buffer.from(run, 'utf8'));
  return Buffer.concat(parts);
}

/** A string that the host turns back into exactly these bytes. */
export function bytesToHostString(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  while (i < bytes.length) {
    const len = utf8SequenceLength(bytes, i);
    if (len === 0) {
      out += String.fromCharCode(0xdc00 + bytes[i]!);
      i++;
    } else {
      out += decoder.decode(bytes.subarray(i, i + len));
      i += len;
    }
  }
  return out;
}

function utf8SequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  let n: number;
  let cp: number;
  if (c >= 0xc2 && c <= 0xdf) [n, cp] = [2, c & 0x1f];
  else if (c >= 0xe0 && c <= 0xef) [n, cp] = [3, c & 0x0f];
  else if (c >= 0xf0 && c <= 0xf4) [n, cp] = [4, c & 0x07];
  else return 0;
  if (i + n > b.length) return 0;
  for (let k = 1; k < n; k++) {
    const cc = b[i + k]!;
    if ((cc & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if ((n === 3 && cp < 0x800) || (n === 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}
