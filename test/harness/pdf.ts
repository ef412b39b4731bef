import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

// pdf.js measures the 14 standard fonts (Helvetica...) from the metrics it ships.
const STANDARD_FONTS = `${path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts')}/`;

/**
 * The text of a PDF as a reader sees it, through pdf.js (Mozilla's PDF reader): one line per
 * row of text (pieces on the same baseline joined by a space, left to right), pages in order.
 */
export async function pdfText(content: Buffer | Uint8Array): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(content), standardFontDataUrl: STANDARD_FONTS, useSystemFonts: false, isEvalSupported: false }).promise;
  const lines: string[] = [];
  try {
    for (let number = 1; number <= doc.numPages; number++) {
      const page = await doc.getPage(number);
      const rows = new Map<number, { x: number; text: string }[]>();
      for (const item of (await page.getTextContent()).items) {
        if (!('str' in item) || item.str.trim() === '') continue;
        const y = Math.round(item.transform[5] as number);
        const row = rows.get(y) ?? rows.set(y, []).get(y)!;
        row.push({ x: item.transform[4] as number, text: item.str });
      }
      for (const y of [...rows.keys()].sort((a, b) => b - a)) {
        lines.push(rows.get(y)!.sort((a, b) => a.x - b.x).map((piece) => piece.text).join(' '));
      }
    }
  } finally {
    await doc.destroy();
  }
  return lines.join('\n');
}
