// A download's bytes, streamed from the store to the response with back-pressure and a fixed set
// of buffers (decision 0490). Each step (`fill`) runs one query of a few parts and writes what it
// makes into a ByteSink: the bytes are copied into 64 KiB blocks, each written to the response as
// soon as it is full. A block is reused once the response has written it (the write's callback), so
// a download makes no garbage outside the V8 heap whatever its size; the next query runs only
// when the response has room (`drain`). A query is read to its end whatever the client's pace (a
// slow client must not hold a statement past its timeout), so the blocks in use are at most one
// query's output plus what the socket has not taken yet.
import { Readable, type Writable } from 'node:stream';

const BLOCK_BYTES = 64 * 1024;
/** Blocks kept for reuse at most (2 MiB); more are left to the collector. */
const KEEP_BLOCKS = 32;

/** Bytes written in order into blocks, each handed to `send` when full or at flush(). */
export class ByteSink {
  private block: Buffer;
  private at = 0;
  private readonly take: () => Buffer;
  private readonly send: (block: Buffer, bytes: Buffer) => void;

  constructor(take: () => Buffer, send: (block: Buffer, bytes: Buffer) => void) {
    this.take = take;
    this.send = send;
    this.block = take();
  }
  /** The bytes src[from, to). */
  write(src: Uint8Array, from = 0, to = src.length) {
    while (from < to) {
      if (this.at === this.block.length) this.next();
      const n = Math.min(to - from, this.block.length - this.at);
      this.block.set(src.subarray(from, from + n), this.at);
      this.at += n;
      from += n;
    }
  }
  /** One byte. */
  byte(b: number) {
    if (this.at === this.block.length) this.next();
    this.block[this.at++] = b;
  }
  /** A string as UTF-8. */
  text(s: string) {
    if (this.block.length - this.at >= s.length * 3) this.at += this.block.write(s, this.at);
    else this.write(Buffer.from(s));
  }
  /** Sends what the current block holds; the next bytes go to another block. */
  flush() {
    if (this.at > 0) this.next();
  }
  private next() {
    const full = this.block;
    const bytes = full.subarray(0, this.at);
    this.block = this.take();
    this.at = 0;
    this.send(full, bytes);
  }
}

/**
 * A download as a Readable for the route to return. Piped (Fastify pipes a stream reply into the
 * response) it writes to the destination itself, with write callbacks, to reuse its blocks; read
 * any other way it pushes copies. `fill` writes one step's bytes and answers whether more follow.
 */
export class DownloadStream extends Readable {
  readonly #fill: (sink: ByteSink) => Promise<boolean>;
  readonly #free: Buffer[] = [];
  #piped = false;
  #reading = false;
  #wake?: () => void;

  constructor(fill: (sink: ByteSink) => Promise<boolean>) {
    super({ highWaterMark: BLOCK_BYTES });
    this.#fill = fill;
  }

  #take = () => this.#free.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
  #release = (block: Buffer) => {
    if (this.#free.length < KEEP_BLOCKS) this.#free.push(block);
  };

  override pipe<T extends NodeJS.WritableStream>(dest: T, opts?: { end?: boolean }): T {
    if (this.#piped || this.#reading) throw new Error('a download is piped once, before it is read');
    this.#piped = true;
    void this.#pump(dest as unknown as Writable, opts?.end !== false);
    return dest;
  }

  async #pump(dest: Writable, end: boolean) {
    // As pipe() does, a write answering false waits for 'drain' before the next query.
    let full = false;
    const sink = new ByteSink(this.#take, (block, bytes) => {
      if (dest.destroyed || dest.writableEnded) return this.#release(block);
      if (!dest.write(bytes, () => this.#release(block))) full = true;
    });
    try {
      for (let more = true; more; ) {
        // (It may have drained while the query ran: then writableNeedDrain is false again.)
        if (full && dest.writableNeedDrain) await this.#drained(dest);
        full = false;
        if (this.destroyed || dest.destroyed) return;
        more = await this.#fill(sink);
        sink.flush();
      }
      if (this.destroyed) return;
      if (end) dest.end();
      // Nothing was buffered here: ending and resuming emits 'end', which the reply waits for.
      this.push(null);
      this.resume();
    } catch (e) {
      this.destroy(e as Error);
    }
  }

  #drained(dest: Writable) {
    return new Promise<void>((resolve) => {
      const done = () => {
        dest.off('drain', done);
        dest.off('close', done);
        this.#wake = undefined;
        resolve();
      };
      dest.on('drain', done);
      dest.on('close', done);
      this.#wake = done;
    });
  }

  override _read() {
    if (this.#piped || this.#reading) return;
    this.#reading = true;
    void this.#readStep();
  }

  /** Read without a pipe: each step's blocks pushed as copies (the consumer may keep them) once it ends. */
  async #readStep() {
    const copies: Buffer[] = [];
    const sink = new ByteSink(this.#take, (block, bytes) => {
      copies.push(Buffer.from(bytes));
      this.#release(block);
    });
    try {
      let more = true;
      while (more && copies.length === 0 && !this.destroyed) {
        more = await this.#fill(sink);
        sink.flush();
      }
      this.#reading = false;
      for (const c of copies) this.push(c);
      if (!more) this.push(null);
    } catch (e) {
      this.destroy(e as Error);
    }
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void) {
    this.#wake?.();
    cb(err);
  }
}
