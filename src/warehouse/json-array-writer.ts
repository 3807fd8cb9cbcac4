/**
 * `--format json`: the engine's JSON lines (one object per line, line breaks inside values
 * escaped) written as one JSON array, chunk by chunk as they arrive. The closing bracket is written
 * only for a complete result: output cut by a limit does not parse as JSON.
 */
const NEWLINE = 0x0a;
const OPEN = Buffer.from('[\n');
const SEPARATOR = Buffer.from(',\n');

export class JsonArrayWriter {
  private started = false;
  private atRowStart = true;

  /** The bytes of the array that `chunk` (any slice of the lines) adds. */
  chunk(data: Uint8Array): Buffer {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const parts: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.atRowStart) {
        parts.push(this.started ? SEPARATOR : OPEN);
        this.started = true;
        this.atRowStart = false;
      }
      const end = chunk.indexOf(NEWLINE, at);
      if (end === -1) {
        parts.push(chunk.subarray(at));
        break;
      }
      parts.push(chunk.subarray(at, end));
      this.atRowStart = true;
      at = end + 1;
    }
    return Buffer.concat(parts);
  }

  /** The end of a complete result. */
  end(): string {
    return this.started ? '\n]\n' : '[]\n';
  }
}
