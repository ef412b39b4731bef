import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

/** What the receiver answers: a status, or 'hang' to never answer (the sender's timeout fires). */
export type Reply = number | 'hang';

/**
 * A real HTTP server on loopback that records every webhook it receives. `replies` are used in
 * order, then `fallback`.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  replies: Reply[] = [];
  fallback: Reply = 200;
  /** Paths that always answer this, whatever `replies` holds. */
  readonly byPath = new Map<string, Reply>();
  private server: Server | undefined;
  private hanging = new Set<() => void>();

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ path: request.url ?? '/', headers: request.headers, body, json: JSON.parse(body || '{}') });
        const reply = this.byPath.get(request.url ?? '/') ?? this.replies.shift() ?? this.fallback;
        if (reply === 'hang') {
          const release = () => response.destroy();
          this.hanging.add(release);
          return;
        }
        response.writeHead(reply, { 'content-type': 'text/plain' }).end(`answer ${reply}`);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Bodies received at one path, in arrival order. */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const release of this.hanging) release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
