// Checks an uploaded image before it is stored, so that rendering a PDF with it later cannot
// fail: the bytes are a PNG or JPEG of bounded size that pdfkit embeds.
import { crc32, inflateSync } from 'node:zlib';

export type ImageType = 'image/png' | 'image/jpeg';

/** Largest side of an accepted image: plenty for a logo, and bounds the memory a PNG decodes to. */
export const MAX_IMAGE_SIDE_PX = 2000;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Samples per pixel of each PNG colour type (greyscale, RGB, palette, grey + alpha, RGBA). */
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Why an image is refused, in words for the merchant. */
export class ImageRejected extends Error {}

export function imageTypeOf(content: Buffer): ImageType | undefined {
  if (content.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff) return 'image/jpeg';
  return undefined;
}

/**
 * Walks the PNG's chunks (checking each CRC), reads its header and inflates its pixel data with
 * a bound on the output, so a damaged or "zip bomb" PNG is refused here rather than failing
 * inside pdfkit's asynchronous decoder later.
 */
function checkPng(content: Buffer): void {
  let offset = 8;
  let header: { width: number; height: number; bitDepth: number; colorType: number; interlace: number } | undefined;
  const data: Buffer[] = [];
  let ended = false;
  while (offset + 12 <= content.length && !ended) {
    const length = content.readUInt32BE(offset);
    const type = content.toString('latin1', offset + 4, offset + 8);
    const end = offset + 12 + length;
    if (end > content.length) throw new ImageRejected('the PNG is cut short');
    if (crc32(content.subarray(offset + 4, offset + 8 + length)) !== content.readUInt32BE(offset + 8 + length)) throw new ImageRejected(`the PNG's ${type} chunk is damaged`);
    const body = content.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), bitDepth: body[8]!, colorType: body[9]!, interlace: body[12]! };
    if (type === 'IDAT') data.push(body);
    if (type === 'IEND') ended = true;
    offset = end;
  }
  if (!header || !ended || data.length === 0) throw new ImageRejected('the PNG has no header, pixel data or end');
  const channels = PNG_CHANNELS[header.colorType];
  if (channels === undefined || header.bitDepth !== 8) throw new ImageRejected('the PNG must use 8 bits per sample (greyscale, RGB, palette, with or without alpha)');
  if (header.interlace !== 0) throw new ImageRejected('the PNG must not be interlaced');
  checkSides(header.width, header.height);
  const expectedBytes = (header.width * channels + 1) * header.height;
  let pixels: Buffer;
  try {
    pixels = inflateSync(Buffer.concat(data), { maxOutputLength: expectedBytes });
  } catch {
    throw new ImageRejected('the PNG pixel data cannot be read');
  }
  if (pixels.length !== expectedBytes) throw new ImageRejected('the PNG pixel data does not match its size');
}

function checkSides(width: number, height: number): void {
  if (width < 1 || height < 1 || width > MAX_IMAGE_SIDE_PX || height > MAX_IMAGE_SIDE_PX) {
    throw new ImageRejected(`the image must be at most ${MAX_IMAGE_SIDE_PX} x ${MAX_IMAGE_SIDE_PX} pixels, got ${width} x ${height}`);
  }
}

/**
 * Refuses (ImageRejected) what is not a PNG or JPEG that pdfkit can place on a page; answers its
 * type and size otherwise. The image is rendered once into a throwaway document as the last check.
 */
export async function checkImage(content: Buffer): Promise<{ type: ImageType; width: number; height: number }> {
  const type = imageTypeOf(content);
  if (!type) throw new ImageRejected('the image must be a PNG or a JPEG');
  if (type === 'image/png') checkPng(content);
  const { default: PDFDocument } = await import('pdfkit'); // loaded at first use, not at start (docs/performance.md, "Memory")
  const doc = new PDFDocument({ size: 'A6' });
  let opened: { width: number; height: number };
  try {
    // pdfkit has openImage (header parse, no decoding) but its types do not declare it
    opened = (doc as unknown as { openImage(src: Buffer): { width: number; height: number } }).openImage(content);
  } catch (error) {
    throw new ImageRejected(`the image cannot be read (${String(error instanceof Error ? error.message : error)})`);
  }
  checkSides(opened.width, opened.height);
  await new Promise<void>((resolve, reject) => {
    doc.on('data', () => {});
    doc.on('end', resolve);
    doc.on('error', reject);
    try {
      doc.image(content, 0, 0, { fit: [100, 100] });
      doc.end();
    } catch (error) {
      reject(new ImageRejected(`the image cannot be placed in a PDF (${String(error instanceof Error ? error.message : error)})`));
    }
  });
  return { type, width: opened.width, height: opened.height };
}
