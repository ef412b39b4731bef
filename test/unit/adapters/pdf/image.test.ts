import { describe, expect, it } from 'vitest';
import { checkImage, imageTypeOf } from '../../../../src/adapters/pdf/image.js';
import { discPng } from '../../../harness/png.js';

// The smallest baseline JPEG (1 x 1 pixel), as widely published.
const TINY_JPEG = Buffer.from('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=', 'base64');

describe('checkImage', () => {
  it('accepts a PNG with alpha and a JPEG, and tells their type and size', async () => {
    expect(await checkImage(discPng(40, [255, 0, 0]))).toEqual({ type: 'image/png', width: 40, height: 40 });
    expect(await checkImage(TINY_JPEG)).toEqual({ type: 'image/jpeg', width: 1, height: 1 });
    expect(imageTypeOf(Buffer.from('GIF89a'))).toBeUndefined();
  });

  it('refuses damaged, oversized and unsupported images before pdfkit sees them', async () => {
    const png = discPng(8, [0, 0, 0]);
    const badCrc = Buffer.from(png);
    badCrc.writeUInt8(badCrc.readUInt8(40) ^ 0x01, 40);
    await expect(checkImage(badCrc)).rejects.toThrow(/damaged/);
    await expect(checkImage(png.subarray(0, png.length - 12))).rejects.toThrow(/no header, pixel data or end/);
    await expect(checkImage(discPng(2001, [0, 0, 0]))).rejects.toThrow('the image must be at most 2000 x 2000 pixels, got 2001 x 2001');
    const interlaced = Buffer.from(png);
    interlaced.writeUInt8(1, 28); // IHDR interlace byte (the CRC is then wrong too: either refusal is fine)
    await expect(checkImage(interlaced)).rejects.toThrow(/PNG/);
    await expect(checkImage(Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x01]))).rejects.toThrow(/cannot be read/);
    await expect(checkImage(Buffer.from('not an image'))).rejects.toThrow('the image must be a PNG or a JPEG');
  });
});
