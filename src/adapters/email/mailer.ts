import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

export interface OutgoingEmail {
  /** Display name of the sender; the address is the configured SMTP `from`. */
  fromName: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
}

export interface SentEmail {
  messageId: string;
}

/** A send that failed; `permanent` when the server refused it for good (5xx: a bounce). */
export class EmailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'EmailSendError';
  }
}

/** The port the e-mail module sends through; the SMTP adapter below is the real one. */
export interface Mailer {
  send(email: OutgoingEmail): Promise<SentEmail>;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
}

const SMTP_TIMEOUT_MS = 30_000;

export function createSmtpMailer(settings: SmtpSettings): Mailer {
  // nodemailer is loaded at the first e-mail, not at start (docs/performance.md, "Memory")
  let transport: Transporter<SMTPTransport.SentMessageInfo> | undefined;
  const open = async () => (await import('nodemailer')).default.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: settings.user ? { user: settings.user, pass: settings.password ?? '' } : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  return {
    async send(email) {
      try {
        transport ??= await open();
        const info = await transport.sendMail({
          from: { name: email.fromName, address: settings.from },
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
          attachments: email.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
        });
        if (info.rejected.length > 0 && info.accepted.length === 0) {
          throw new EmailSendError(`all recipients rejected: ${info.rejected.map(String).join(', ')}`, true);
        }
        return { messageId: info.messageId };
      } catch (error) {
        if (error instanceof EmailSendError) throw error;
        const e = error as Error & { responseCode?: number; response?: string };
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
        throw new EmailSendError(e.response ?? e.message, permanent);
      }
    },
  };
}
