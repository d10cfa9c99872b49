import { decodeHeader, Frame, FrameHeader, HEADER_LENGTH, MAX_PAYLOAD_LENGTH } from './frame';

export interface FrameSink {
  frame(frame: Frame): void;
  /** A frame over the limit, whose payload has been read and thrown away: answer it on its stream. */
  oversize(header: FrameHeader): void;
}

/**
 * Cuts a byte stream into frames. A read may hold several frames or a piece of one
 * (down to one byte), so bytes wait here until a whole frame is in. The payload of
 * an oversized frame is skipped as it arrives, never held, and the sink hears of it
 * once the last byte is gone, as ttrpc's channel.recv discards before it answers.
 */
export class FrameReader {
  /** Unread chunks are chunks[head..]; an index, not shift(), keeps many tiny reads linear. */
  private chunks: Buffer[] = [];
  private head = 0;
  private buffered = 0;
  private header: FrameHeader | undefined;
  private discarding = 0;

  constructor(
    private readonly sink: FrameSink,
    private readonly maxPayload = MAX_PAYLOAD_LENGTH,
  ) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.discarding > 0) {
        this.discarding -= this.skip(this.discarding);
        if (this.discarding > 0) return;
        this.sink.oversize(this.finishFrame());
        continue;
      }
      if (this.header === undefined) {
        if (this.buffered < HEADER_LENGTH) return;
        this.header = decodeHeader(this.take(HEADER_LENGTH));
        if (this.header.length > this.maxPayload) {
          this.discarding = this.header.length;
          continue;
        }
      }
      if (this.buffered < this.header.length) return;
      const payload = this.take(this.header.length);
      this.sink.frame({ ...this.finishFrame(), payload });
    }
  }

  /** Whether the bytes so far end inside a frame: its header or payload in part, or an oversized body being discarded. */
  get inFrame(): boolean {
    return this.buffered > 0 || this.header !== undefined || this.discarding > 0;
  }

  /** Bytes held for a frame not yet complete. */
  get pending(): number {
    return this.buffered;
  }

  private finishFrame(): FrameHeader {
    const header = this.header as FrameHeader;
    this.header = undefined;
    return header;
  }

  /** The next n buffered bytes (n <= buffered), without copying when one chunk holds them. */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[this.head];
    if (first.length >= n) {
      this.consume(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[this.head];
      const part = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, part);
      filled += part;
      this.consume(part);
    }
    return out;
  }

  /** Drops up to n buffered bytes; returns how many. */
  private skip(n: number): number {
    let skipped = 0;
    while (skipped < n && this.buffered > 0) {
      const part = Math.min(this.chunks[this.head].length, n - skipped);
      this.consume(part);
      skipped += part;
    }
    return skipped;
  }

  /** Removes n bytes (n <= first chunk's length) from the front. */
  private consume(n: number): void {
    const first = this.chunks[this.head];
    if (n < first.length) this.chunks[this.head] = first.subarray(n);
    else if (++this.head === this.chunks.length) {
      this.chunks = [];
      this.head = 0;
    } else if (this.head >= 1024) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
    this.buffered -= n;
  }
}
