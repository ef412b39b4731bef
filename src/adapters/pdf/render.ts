import { readFileSync } from 'node:fs';

/**
 * A billing document as the PDF shows it: every value already formatted (amounts as decimal
 * strings followed by their currency, dates as YYYY-MM-DD). Invoices and credit notes share this
 * model so the adapter knows nothing about either module.
 */
export interface PdfDocumentModel {
  /** "Invoice" or "Credit note". */
  title: string;
  /** The document number, or "DRAFT" while it has none. */
  number: string;
  /** A line under the title in the accent colour ("Draft: not issued yet"), or nothing. */
  banner?: string | null;
  /** Fixes the PDF's creation and modification dates, so the same document gives the same bytes. */
  issuedAt: Date;
  /** PNG or JPEG bytes printed top left (checked when uploaded: src/adapters/pdf/image.ts). */
  logo?: Buffer | null;
  /** Label/value pairs under the title (dates, references). */
  facts: [string, string][];
  seller: string[];
  buyer: string[];
  /** Column titles; the first column is the description (left aligned, takes the rest of the width), the others are right aligned. */
  columns: string[];
  /** Widths in points of the columns after the first. */
  columnWidths: number[];
  rows: string[][];
  totals: [string, string][];
  /** Tax mentions and the memo, under the totals. */
  notes: string[];
  /** How to pay: a heading and its lines, or nothing; `link` is printed after the first line as a clickable line (the hosted pay page). */
  payment?: { heading: string; lines: string[]; link?: { label: string; url: string } | null } | null;
  /** Printed at the foot of every page with the page number (legal mentions). */
  footer: string[];
}

const MARGIN = 50;
const PAGE_WIDTH = 595.28; // A4
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const FOOTER_FONT_SIZE = 7.5;
const ACCENT = '#b42318';
const MUTED = '#555555';
const RULE = '#cccccc';

/**
 * A structured invoice attached to the PDF, which then becomes a PDF/A-3b "hybrid" (Factur-X /
 * ZUGFeRD): the XML as an associated file and the XMP entries that name it.
 */
export interface PdfAttachment {
  /** `factur-x.xml` or `xrechnung.xml`, as the profile names it. */
  fileName: string;
  content: Buffer;
  /** XMP fx:ConformanceLevel: `EN 16931`, `XRECHNUNG`. */
  conformanceLevel: string;
}

const FONT_DIR = new URL('./fonts/', import.meta.url);
let embeddedFonts: { regular: Buffer; bold: Buffer } | undefined;
/** Liberation Sans has Helvetica's metrics, so the layout is the same as the standard-font PDF. */
function fonts(): { regular: Buffer; bold: Buffer } {
  embeddedFonts ??= {
    regular: readFileSync(new URL('LiberationSans-Regular.ttf', FONT_DIR)),
    bold: readFileSync(new URL('LiberationSans-Bold.ttf', FONT_DIR)),
  };
  return embeddedFonts;
}

/** The Factur-X XMP extension schema (Factur-X 1.0, section 6.2.2) and its values. */
function facturXmp(attachment: PdfAttachment): string {
  return `
        <rdf:Description xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#" rdf:about="">
          <pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
            <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
            <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
            <pdfaSchema:prefix>fx</pdfaSchema:prefix>
            <pdfaSchema:property><rdf:Seq>
              ${['DocumentFileName', 'DocumentType', 'Version', 'ConformanceLevel'].map((name) => `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${name}</pdfaProperty:description></rdf:li>`).join('')}
            </rdf:Seq></pdfaSchema:property>
          </rdf:li></rdf:Bag></pdfaExtension:schemas>
        </rdf:Description>
        <rdf:Description xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#" rdf:about="">
          <fx:DocumentType>INVOICE</fx:DocumentType>
          <fx:DocumentFileName>${attachment.fileName}</fx:DocumentFileName>
          <fx:Version>1.0</fx:Version>
          <fx:ConformanceLevel>${attachment.conformanceLevel}</fx:ConformanceLevel>
        </rdf:Description>`;
}

/**
 * Renders with the standard Helvetica fonts (no embedding) and a fixed info dictionary: pdfkit
 * derives the file id from the info, so the bytes depend only on the model. With an attachment
 * the PDF is a PDF/A-3b: fonts embedded (PDF/A allows no other; pdfkit names subsets after the
 * font's order of use, so this stays deterministic), the XML attached with relationship
 * Alternative, and the Factur-X XMP metadata.
 */
export async function renderPdf(model: PdfDocumentModel, attachment?: PdfAttachment): Promise<Buffer> {
  // loaded at first use, not at start: only jobs render PDFs (docs/performance.md, "Memory")
  const { default: PDFDocument } = await import('pdfkit');
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN },
      bufferPages: true,
      ...(attachment ? { subset: 'PDF/A-3b' as const, pdfVersion: '1.7' as const, lang: 'en' } : {}),
      info: {
        Title: `${model.title} ${model.number}`,
        Producer: 'tally-billing',
        Creator: 'tally-billing',
        CreationDate: model.issuedAt,
        ModDate: model.issuedAt,
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      if (attachment) {
        // registered fonts are looked up before the standard ones: the drawing code stays the same
        doc.registerFont('Helvetica', fonts().regular);
        doc.registerFont('Helvetica-Bold', fonts().bold);
        // pdfkit 0.20 takes `relationship`; its published types (0.17) do not know it yet
        doc.file(attachment.content, {
          name: attachment.fileName,
          type: 'text/xml',
          relationship: 'Alternative',
          description: 'Structured invoice (EN 16931)',
          creationDate: model.issuedAt,
          modifiedDate: model.issuedAt,
        } as PDFKit.Mixins.PDFAttachmentOptions);
        (doc as unknown as { appendXML(xml: string): void }).appendXML(facturXmp(attachment));
      }
      draw(doc, model);
      doc.end();
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

function footerLines(model: PdfDocumentModel, page: number, pages: number): string {
  return [...model.footer, `${model.title} ${model.number} - page ${page} of ${pages}`].join('\n');
}

function draw(doc: PDFKit.PDFDocument, model: PdfDocumentModel): void {
  // The footer's room is kept free on every page: the bottom margin grows with the legal mentions.
  const footerHeight = doc.font('Helvetica').fontSize(FOOTER_FONT_SIZE).heightOfString(footerLines(model, 99, 99), { width: CONTENT_WIDTH }) + 12;
  const margins = { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + footerHeight };
  doc.page.margins.bottom = margins.bottom;
  (doc.options as { margins?: typeof margins }).margins = margins; // pages pdfkit adds by itself
  /** Starts a new page when `height` more points would run into the footer. */
  const ensureRoom = (height: number): boolean => {
    if (doc.y + height <= doc.page.height - doc.page.margins.bottom) return false;
    doc.addPage({ size: 'A4', margins });
    return true;
  };

  // Header: logo on the left, title, number and facts on the right.
  const headerTop = MARGIN;
  if (model.logo) doc.image(model.logo, MARGIN, headerTop, { fit: [160, 64] });
  const rightX = MARGIN + CONTENT_WIDTH / 2;
  const rightWidth = CONTENT_WIDTH / 2;
  doc.font('Helvetica-Bold').fontSize(20).fillColor('black').text(model.title, rightX, headerTop, { width: rightWidth, align: 'right' });
  doc.font('Helvetica').fontSize(11).text(model.number, rightX, doc.y, { width: rightWidth, align: 'right' });
  if (model.banner) doc.font('Helvetica-Bold').fontSize(10).fillColor(ACCENT).text(model.banner, rightX, doc.y, { width: rightWidth, align: 'right' }).fillColor('black');
  doc.moveDown(0.5).font('Helvetica').fontSize(9);
  for (const [label, value] of model.facts) doc.text(`${label}: ${value}`, rightX, doc.y, { width: rightWidth, align: 'right' });
  doc.y = Math.max(doc.y, headerTop + (model.logo ? 70 : 0)) + 18;

  // Parties.
  const partiesTop = doc.y;
  const half = CONTENT_WIDTH / 2 - 10;
  doc.font('Helvetica-Bold').fontSize(9).fillColor(MUTED).text('FROM', MARGIN, partiesTop, { width: half });
  doc.font('Helvetica').fontSize(10).fillColor('black');
  model.seller.forEach((line, index) => doc.font(index === 0 ? 'Helvetica-Bold' : 'Helvetica').text(line, MARGIN, doc.y, { width: half }));
  const sellerBottom = doc.y;
  doc.font('Helvetica-Bold').fontSize(9).fillColor(MUTED).text('BILL TO', rightX, partiesTop, { width: half });
  doc.font('Helvetica').fontSize(10).fillColor('black');
  model.buyer.forEach((line, index) => doc.font(index === 0 ? 'Helvetica-Bold' : 'Helvetica').text(line, rightX, doc.y, { width: half }));
  doc.y = Math.max(sellerBottom, doc.y) + 20;

  // Lines.
  const widths = [CONTENT_WIDTH - model.columnWidths.reduce((sum, w) => sum + w, 0), ...model.columnWidths];
  const xs = widths.map((_, index) => MARGIN + widths.slice(0, index).reduce((sum, w) => sum + w, 0));
  const row = (cells: readonly string[], options: { header?: boolean } = {}) => {
    doc.font(options.header ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    const height = Math.max(...cells.map((cell, index) => doc.heightOfString(cell, { width: widths[index]! - 6 })));
    // a table continued on a new page repeats its column titles
    if (ensureRoom(height + 6) && !options.header) {
      row(model.columns, { header: true });
      doc.font('Helvetica').fontSize(9);
    }
    const y = doc.y;
    cells.forEach((cell, index) => doc.text(cell, xs[index]! + (index === 0 ? 0 : 6), y, { width: widths[index]! - 6, align: index === 0 ? 'left' : 'right' }));
    doc.y = y + height + 4;
    if (options.header) doc.moveTo(MARGIN, doc.y - 2).lineTo(MARGIN + CONTENT_WIDTH, doc.y - 2).strokeColor(RULE).lineWidth(0.5).stroke();
  };
  row(model.columns, { header: true });
  for (const cells of model.rows) row(cells);
  doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + CONTENT_WIDTH, doc.y).strokeColor(RULE).lineWidth(0.5).stroke();
  doc.y += 8;

  // Totals, right aligned under the amounts.
  const labelWidth = 200;
  const valueWidth = 100;
  const labelX = MARGIN + CONTENT_WIDTH - labelWidth - valueWidth;
  for (const [label, value] of model.totals) {
    const bold = label === 'Total' || label === 'Amount due' || label === 'Total credited';
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(bold ? 10 : 9);
    const height = Math.max(doc.heightOfString(label, { width: labelWidth }), doc.heightOfString(value, { width: valueWidth }));
    ensureRoom(height + 4);
    const y = doc.y;
    doc.text(label, labelX, y, { width: labelWidth, align: 'right' });
    doc.text(value, labelX + labelWidth, y, { width: valueWidth, align: 'right' });
    doc.y = y + height + 3;
  }

  doc.font('Helvetica').fontSize(9).fillColor('black');
  if (model.notes.length > 0) {
    doc.y += 12;
    for (const note of model.notes) {
      ensureRoom(doc.heightOfString(note, { width: CONTENT_WIDTH }) + 4);
      doc.text(note, MARGIN, doc.y, { width: CONTENT_WIDTH });
      doc.y += 3;
    }
  }

  if (model.payment) {
    doc.y += 12;
    const link = model.payment.link;
    ensureRoom(14 * (model.payment.lines.length + (link ? 2 : 1)));
    doc.font('Helvetica-Bold').fontSize(10).text(model.payment.heading, MARGIN, doc.y, { width: CONTENT_WIDTH });
    doc.font('Helvetica').fontSize(9);
    const printLink = (l: { label: string; url: string }) => {
      doc.text(`${l.label}: `, MARGIN, doc.y, { width: CONTENT_WIDTH, continued: true });
      doc.fillColor('#0b57d0').text(l.url, { link: l.url, underline: true }).fillColor('black');
    };
    // the link follows the first line (what to pay and by when), before the bank details
    model.payment.lines.forEach((line, index) => {
      doc.text(line, MARGIN, doc.y, { width: CONTENT_WIDTH });
      if (index === 0 && link) printLink(link);
    });
    if (link && model.payment.lines.length === 0) printLink(link);
  }

  // Footer of every page: legal mentions and the page number, inside the bottom margin.
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing inside the margin must not start a new page
    const top = doc.page.height - MARGIN - footerHeight + 10;
    doc.moveTo(MARGIN, top - 5).lineTo(MARGIN + CONTENT_WIDTH, top - 5).strokeColor(RULE).lineWidth(0.5).stroke();
    doc.font('Helvetica').fontSize(FOOTER_FONT_SIZE).fillColor(MUTED);
    doc.text(footerLines(model, index - range.start + 1, range.count), MARGIN, top, { width: CONTENT_WIDTH, align: 'center' });
    doc.fillColor('black');
    doc.page.margins.bottom = bottom;
  }
}
