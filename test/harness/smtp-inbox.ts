// A real SMTP server on loopback that keeps what it receives, for tests of the e-mails we send.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface SmtpInbox {
  port: number;
  close(): Promise<void>;
}

/** Starts the server on a free port; every message received is pushed to `inbox`. */
export async function startSmtpInbox(inbox: ReceivedMail[]): Promise<SmtpInbox> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
