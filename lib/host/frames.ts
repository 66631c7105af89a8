/**
 * The frame format shared with plugstack-host (native/core/common/channel.h):
 * a 4-byte little-endian length, then that many bytes of JSON.
 */

/** Same limit as the host's: a larger length means a corrupt stream. */
export const MAX_FRAME = 16 * 1024 * 1024;

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  if (body.length > MAX_FRAME) throw new RangeError(`frame of ${body.length} bytes exceeds ${MAX_FRAME}`);
  const header = Buffer.alloc(4);
  header.writeUInt32LE(body.length, 0);
  return Buffer.concat([header, body]);
}

/** Accumulates bytes and hands out complete frames, parsed. */
export class FrameDecoder {
  private pending: Buffer = Buffer.alloc(0);

  /** Throws on a malformed frame; the caller ends the run. */
  push(chunk: Buffer): unknown[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: unknown[] = [];
    while (this.pending.length >= 4) {
      const len = this.pending.readUInt32LE(0);
      if (len > MAX_FRAME) throw new Error(`frame length ${len} exceeds the limit`);
      if (this.pending.length < 4 + len) break;
      const body = this.pending.subarray(4, 4 + len).toString('utf8');
      this.pending = this.pending.subarray(4 + len);
      out.push(JSON.parse(body));
    }
    return out;
  }

  /** Bytes of an incomplete frame left at the end of the stream. */
  get leftover(): number {
    return this.pending.length;
  }
}
