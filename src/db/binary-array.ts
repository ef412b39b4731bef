// One-dimensional PostgreSQL arrays in the binary wire format, for bulk statement parameters.
// node-postgres sends a Buffer parameter as binary, and the server then reads each element with
// its type's binary receive function: no array-literal quoting to write or to parse, and
// timestamps as integers instead of text (see docs/usage.md "Write path").

/** Element type OIDs (pg_type.oid) of the arrays written here. */
export const ELEMENT_OID = { bytea: 17, text: 25, timestamptz: 1184, jsonb: 3802 } as const;

/** Milliseconds from the Unix epoch to PostgreSQL's epoch, 2000-01-01T00:00:00Z. */
const POSTGRES_EPOCH_MS = 946_684_800_000;
const TWO_POW_32 = 4_294_967_296;
/** Version byte in front of jsonb's binary form (the JSON text). */
const JSONB_VERSION = 1;

/**
 * Writes the layout of `array_send`: dimensions, flags, element type, size and lower bound, then
 * each element as a 4-byte length and its bytes. The element count is fixed up front.
 */
export class BinaryArrayWriter {
  private buffer: Buffer;
  private position: number;

  constructor(elementOid: number, count: number, bytesPerElement = 16) {
    this.buffer = Buffer.allocUnsafe(20 + count * (4 + bytesPerElement));
    this.buffer.writeInt32BE(1, 0); // one dimension
    this.buffer.writeInt32BE(0, 4); // no NULL elements
    this.buffer.writeUInt32BE(elementOid, 8);
    this.buffer.writeInt32BE(count, 12);
    this.buffer.writeInt32BE(1, 16); // lower bound
    this.position = 20;
  }

  /** A text element, UTF-8. */
  text(value: string): void {
    // A UTF-16 unit is at most 3 UTF-8 bytes; the 4-byte length is written once the size is known.
    this.reserve(4 + value.length * 3);
    const bytes = this.buffer.write(value, this.position + 4, 'utf8');
    this.buffer.writeInt32BE(bytes, this.position);
    this.position += 4 + bytes;
  }

  /** A jsonb element from its JSON text. */
  jsonb(jsonText: string): void {
    this.reserve(5 + jsonText.length * 3);
    this.buffer[this.position + 4] = JSONB_VERSION;
    const bytes = this.buffer.write(jsonText, this.position + 5, 'utf8');
    this.buffer.writeInt32BE(bytes + 1, this.position);
    this.position += 5 + bytes;
  }

  /** A timestamptz element: microseconds since PostgreSQL's epoch, a 64-bit integer. */
  timestamptz(epochMs: number): void {
    this.reserve(12);
    const micros = (epochMs - POSTGRES_EPOCH_MS) * 1000; // exact: below 2^53 until the year 2285
    const high = Math.floor(micros / TWO_POW_32);
    this.buffer.writeInt32BE(8, this.position);
    this.buffer.writeInt32BE(high, this.position + 4);
    this.buffer.writeUInt32BE(micros - high * TWO_POW_32, this.position + 8);
    this.position += 12;
  }

  /** A bytea element from its hex text. */
  byteaFromHex(hex: string): void {
    this.reserve(4 + hex.length / 2);
    const bytes = this.buffer.write(hex, this.position + 4, 'hex');
    this.buffer.writeInt32BE(bytes, this.position);
    this.position += 4 + bytes;
  }

  /** The array's bytes (a view of the writer's buffer). */
  finish(): Buffer {
    return this.buffer.subarray(0, this.position);
  }

  private reserve(bytes: number): void {
    if (this.position + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.position + bytes));
    this.buffer.copy(grown, 0, 0, this.position);
    this.buffer = grown;
  }
}
