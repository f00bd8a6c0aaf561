import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { waitFor } from './wait.ts';

/** A message the sink accepted, as a mail client would read it. */
export interface ReceivedMail {
  envelopeTo: string[];
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Each header as it was written, by lower-case name (the first of a name). */
  headers: Map<string, string>;
}

const headersOf = (parsed: ParsedMail) => {
  const headers = new Map<string, string>();
  for (const { key, line } of parsed.headerLines) if (!headers.has(key)) headers.set(key, line.slice(line.indexOf(':') + 1).trim());
  return headers;
};

/**
 * A real SMTP server inside the test process (smtp-server), which reads what it accepts with
 * mailparser. It requires the credentials it was given, can refuse every connection for a while
 * (421, as a relay that is down or busy), and tells `onAccepted` about each message right after
 * answering 250 (a test may end a sender's process there).
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  refusing = false;
  onAccepted: ((mail: ReceivedMail) => void) | undefined;
  private server: SMTPServer | undefined;
  private port = 0;
  private readonly credentials = { user: 'mailer', pass: 's3cret pass/word' };

  /** `smtp://` with the credentials, as SMTP_URL takes it. */
  get url(): string {
    return `smtp://${encodeURIComponent(this.credentials.user)}:${encodeURIComponent(this.credentials.pass)}@127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const options: SMTPServerOptions = {
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onConnect: (_session, callback) => {
        if (!this.refusing) return callback();
        callback(Object.assign(new Error('Service not available, try again later'), { responseCode: 421 }));
      },
      onAuth: (auth, _session, callback) => {
        if (auth.username === this.credentials.user && auth.password === this.credentials.pass) return callback(null, { user: auth.username });
        callback(new Error('Invalid username or password'));
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((parsed) => {
            const mail: ReceivedMail = {
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              messageId: parsed.messageId ?? '',
              to: (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).map((address) => address.text).join(', '),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              headers: headersOf(parsed),
            };
            this.received.push(mail);
            callback();
            this.onAccepted?.(mail);
          })
          .catch((error: Error) => callback(error));
      },
    };
    this.server = new SMTPServer(options);
    this.server.on('error', () => {});
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** Waits until `count` messages have arrived in all. */
  async waitForCount(count: number, timeoutMs = 10_000): Promise<ReceivedMail[]> {
    await waitFor(`${count} messages at the SMTP sink`, () => this.received.length >= count, { timeoutMs });
    return this.received;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
