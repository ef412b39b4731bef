import PDFDocument from 'pdfkit';

/**
 * A billing document as the PDF shows it: every value already formatted (amounts as decimal
 * strings with the currency's digits). Invoices and credit notes share this model so the
 * adapter knows nothing about either module.
 */
export interface PdfDocumentModel {
  /** "Invoice" or "Credit note". */
  title: string;
  number: string;
  /** Fixes the PDF's creation and modification dates, so the same document gives the same bytes. */
  issuedAt: Date;
  /** Label/value pairs under the title (dates, references). */
  facts: [string, string][];
  seller: string[];
  buyer: string[];
  columns: [string, string, string, string];
  rows: [string, string, string, string][];
  totals: [string, string][];
  notes: string[];
}

const MARGIN = 50;
const COLUMN_X = [MARGIN, 300, 390, 470];
const COLUMN_WIDTH = [240, 80, 75, 75];

/**
 * Renders with the standard Helvetica fonts (no embedding, no subset tags) and a fixed info
 * dictionary: pdfkit derives the file id from the info, so the bytes depend only on the model.
 */
export function renderPdf(model: PdfDocumentModel): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
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

    doc.font('Helvetica-Bold').fontSize(20).text(`${model.title} ${model.number}`);
    doc.moveDown(0.5).font('Helvetica').fontSize(10);
    for (const [label, value] of model.facts) doc.text(`${label}: ${value}`);
    doc.moveDown();
    const top = doc.y;
    doc.font('Helvetica-Bold').text('From', MARGIN, top).font('Helvetica');
    for (const line of model.seller) doc.text(line, MARGIN);
    const sellerBottom = doc.y;
    doc.font('Helvetica-Bold').text('Bill to', 300, top).font('Helvetica');
    for (const line of model.buyer) doc.text(line, 300);
    doc.y = Math.max(sellerBottom, doc.y);
    doc.moveDown(2);

    const row = (cells: readonly string[], bold = false) => {
      const y = doc.y;
      doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
      let bottom = y;
      cells.forEach((cell, index) => {
        doc.text(cell, COLUMN_X[index], y, { width: COLUMN_WIDTH[index], align: index === 0 ? 'left' : 'right' });
        bottom = Math.max(bottom, doc.y);
      });
      doc.y = bottom + 4;
    };
    row(model.columns, true);
    for (const cells of model.rows) row(cells);
    doc.moveDown();
    for (const [label, value] of model.totals) row([label, '', '', value], label.startsWith('Total') || label.startsWith('Amount due'));
    if (model.notes.length > 0) {
      doc.moveDown().font('Helvetica').fontSize(9);
      for (const note of model.notes) doc.text(note, MARGIN);
    }
    doc.end();
  });
}
