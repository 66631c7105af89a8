/**
 * The frame format shared with plugstack-host (native/core/common/channel.h):
 * a 4-byte little-endian length, then that many bytes of JSON.
 */

/** Same limit as the host's: a larger length means a corrupt stream. */
export const MAX_FRAME = 16 * 1024 * 1024;

export function encodeFrame(message: unknown): Buffer {
  const text = JSON.stringify(message);
  const length = Buffer.byteLength(text, 'utf8');
  if (length > MAX_FRAME) throw new RangeError(`frame of ${length} bytes exceeds ${MAX_FRAME}`);
  // One buffer, the body written in place after its header.
  const frame = Buffer.allocUnsafe(4 + length);
  frame.writeUInt32LE(length, 0);
  frame.write(text, 4, 'utf8');
  return frame;
}

/**
 * Accumulates bytes and hands out complete frames, parsed. Each body is
 * decoded where it lies in the chunk (no Buffer made per frame); the bytes
 * of an incomplete frame wait, copied (a chunk may be a buffer its reader
 * fills again), and are joined once the frame is whole.
 */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The length of the frame that is pending, once its header is in. */
  private need = 0;

  /** Throws on a malformed frame; the caller ends the run. */
  push(chunk: Buffer): unknown[] {
    let bytes = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(Buffer.from(chunk));
      this.pendingBytes += chunk.length;
      if (this.pendingBytes < 4) return [];
      if (this.need === 0) this.need = 4 + readLength(this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, 4));
      if (this.pendingBytes < this.need) return [];
      bytes = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      this.need = 0;
    }
    const out: unknown[] = [];
    let at = 0;
    while (bytes.length - at >= 4) {
      const len = readLength(bytes, at);
      if (bytes.length - at - 4 < len) break;
      out.push(JSON.parse(bytes.toString('utf8', at + 4, at + 4 + len)));
      at += 4 + len;
    }
    if (at < bytes.length) {
      const rest = Buffer.from(bytes.subarray(at));
      this.pending.push(rest);
      this.pendingBytes = rest.length;
      if (rest.length >= 4) this.need = 4 + readLength(rest);
    }
    return out;
  }

  /** Bytes of an incomplete frame left at the end of the stream. */
  get leftover(): number {
    return this.pendingBytes;
  }
}

/** A frame's length from its header; one over the limit means a corrupt stream. */
function readLength(bytes: Buffer, at = 0): number {
  const len = bytes.readUInt32LE(at);
  if (len > MAX_FRAME) throw new Error(`frame length ${len} exceeds the limit`);
  return len;
}
