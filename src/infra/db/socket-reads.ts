// A socket for node-postgres that reads into one reused buffer (decision 0490). A plain socket
// allocates a new Buffer for every read (up to 64 KiB), memory outside the V8 heap that is garbage
// as soon as pg has parsed it but is freed only when V8 collects its small wrapper; a bulk read
// (an export's download) makes hundreds of MiB of such garbage, freed only at V8's external-memory
// limit. Here Node reads into the socket's own buffer (`onread`) and pg is handed whole protocol
// messages only: a message split across reads is completed in a second buffer, kept for the next
// one. pg's parser then never keeps a view of a buffer that the next read overwrites (it keeps the
// rest of a message only when a read ends inside one). What pg makes of a message is its own copy
// (text fields as strings), except a CopyData message's bytes, a view valid only while its handler
// runs (CopyOutStream copies what it keeps).
import net from 'node:net';

/** One read at most: Node's own read size. */
const READ_BYTES = 64 * 1024;
/** A buffer for a split message larger than this is not kept after that message. */
const KEEP_BYTES = 1024 * 1024;
const EMPTY = Buffer.alloc(0);
/** Type byte and length (int32, counting itself) of a protocol message. */
const HEADER = 5;

/** A socket (not yet connected) for a connection without TLS: `stream` of pg's Client config. */
export function reusedBufferSocket(): net.Socket {
  const read = Buffer.allocUnsafe(READ_BYTES);
  let split = EMPTY;
  let splitLength = 0;
  const room = (size: number) => {
    if (split.length >= size) return;
    const next = Buffer.allocUnsafe(Math.max(size, split.length * 2, READ_BYTES));
    split.copy(next, 0, 0, splitLength);
    split = next;
  };
  const socket: net.Socket = new net.Socket({
    onread: {
      buffer: read,
      callback: (n: number, buf: Uint8Array) => {
        const b = buf as Buffer;
        let at = 0;
        if (splitLength > 0) {
          // The rest of the message the last read ended in.
          if (splitLength < HEADER) {
            const take = Math.min(HEADER - splitLength, n);
            room(HEADER);
            b.copy(split, splitLength, 0, take);
            splitLength += take;
            at = take;
            if (splitLength < HEADER) return true;
          }
          const total = 1 + split.readInt32BE(1);
          room(total);
          const take = Math.min(total - splitLength, n - at);
          b.copy(split, splitLength, at, at + take);
          splitLength += take;
          at += take;
          if (splitLength < total) return true;
          splitLength = 0;
          socket.emit('data', split.subarray(0, total));
          if (split.length > KEEP_BYTES) split = EMPTY;
        }
        // The whole messages of this read, in one piece; the one it ends in, kept aside.
        let end = at;
        while (end + HEADER <= n) {
          const total = 1 + b.readInt32BE(end + 1);
          if (end + total > n) break;
          end += total;
        }
        if (end > at) socket.emit('data', b.subarray(at, end));
        if (end < n) {
          room(n - end);
          b.copy(split, 0, end, n);
          splitLength = n - end;
        }
        return true;
      },
    },
  });
  return socket;
}
