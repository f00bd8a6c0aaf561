import SMTPConnection from 'nodemailer/lib/smtp-connection';
import MailComposer from 'nodemailer/lib/mail-composer';

/** One e-mail ready to leave: rendered, with its own headers. */
export interface OutgoingMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/**
 * What became of one message. `sent`: the server took it. `refused`: it did not, certainly (nothing
 * of the message went out, or the server answered with a refusal): `permanent` for a 5xx answer.
 * `inDoubt`: the message went out but no answer came (the server may or may not have it), so sending
 * it again could deliver it twice. `notTried`: the connection ended before its turn.
 */
export type SendOutcome =
  { result: 'sent' } | { result: 'refused'; permanent: boolean; error: string } | { result: 'inDoubt'; error: string } | { result: 'notTried' };

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  from: string;
  /** Host part of the Message-IDs (the app's host). */
  messageIdHost: string;
}

/** `smtp://user:pass@host:port` or `smtps://...` as connection settings. */
export function smtpSettingsOf(url: string, from: string, appUrl: string): SmtpSettings {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  const user = decodeURIComponent(parsed.username);
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    ...(user ? { auth: { user, pass: decodeURIComponent(parsed.password) } } : {}),
    from,
    messageIdHost: new URL(appUrl).hostname,
  };
}

/** Ends waiting on a server that went silent; the lease on a message outlasts all of these together. */
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };

type SmtpError = Error & { code?: string; responseCode?: number };
const describe = (error: SmtpError) => [error.code, error.responseCode, error.message].filter(Boolean).join(' ').slice(0, 500);

/** The message's own Message-ID, the same at every attempt: a relay that sees it twice may drop the copy. */
const messageIdOf = (mail: Pick<OutgoingMail, 'id'>, host: string) => `<${mail.id}@${host}>`;

/**
 * Sends messages over one SMTP session, in order, telling `onOutcome` about each before the next
 * (so the record of each send is written as soon as the server answers).
 */
export async function sendOverSmtp(
  settings: SmtpSettings,
  messages: OutgoingMail[],
  onOutcome: (mail: OutgoingMail, outcome: SendOutcome) => Promise<void>,
): Promise<void> {
  const connection = new SMTPConnection({ host: settings.host, port: settings.port, secure: settings.secure, ...TIMEOUTS });
  // The connection reports some failures (a refusing greeting, a dropped socket) as events rather
  // than to the pending callback: the step waiting on it fails with them. A late one is ignored.
  let failStep: ((error: Error) => void) | undefined;
  connection.on('error', (error: Error) => failStep?.(error));
  connection.on('end', () => failStep?.(Object.assign(new Error('Connection closed'), { code: 'ECONNECTION' })));
  const step = (start: (done: (error?: Error | null) => void) => void) =>
    new Promise<void>((resolve, reject) => {
      failStep = reject;
      start((error) => (error ? reject(error) : resolve()));
    }).finally(() => (failStep = undefined));
  let index = 0;
  try {
    await step((done) => connection.connect(done));
    if (settings.auth) await step((done) => connection.login(settings.auth!, done));
  } catch (error) {
    // Not connected: nothing went out, every message is refused for now.
    for (const mail of messages) await onOutcome(mail, { result: 'refused', permanent: false, error: describe(error as SmtpError) });
    connection.close();
    return;
  }
  for (; index < messages.length; index++) {
    const mail = messages[index]!;
    const outcome = await sendOne(connection, settings, mail, (fail) => (failStep = fail));
    await onOutcome(mail, outcome);
    if (outcome.result === 'inDoubt' || (outcome.result === 'refused' && connectionLost(outcome))) break;
    if (outcome.result === 'refused') {
      const reset = await new Promise<boolean>((resolve) => connection.reset((error?: Error | null) => resolve(!error)));
      if (!reset) break;
    }
  }
  for (index++; index < messages.length; index++) await onOutcome(messages[index]!, { result: 'notTried' });
  connection.quit();
}

const connectionLost = (outcome: { error: string }) => /^(ECONNECTION|ESOCKET|ETIMEDOUT)\b/.test(outcome.error);

/** Sends one message; `watch` hands over what to call when the connection fails outside the callback. */
async function sendOne(
  connection: SMTPConnection,
  settings: SmtpSettings,
  mail: OutgoingMail,
  watch: (fail: ((error: Error) => void) | undefined) => void,
): Promise<SendOutcome> {
  const composer = new MailComposer({
    from: settings.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers: mail.headers,
    messageId: messageIdOf(mail, settings.messageIdHost),
  });
  const stream = composer.compile().createReadStream();
  const envelope = { from: addressOf(settings.from), to: [mail.to] };
  return new Promise<SendOutcome>((resolve) => {
    let answered = false;
    const answer = (error: SmtpError | null) => {
      if (answered) return;
      answered = true;
      watch(undefined);
      if (!error) return resolve({ result: 'sent' });
      // The server answered with a refusal, or not a byte of the message left: certainly not delivered.
      if (error.responseCode || !stream.readableDidRead) {
        const permanent = error.responseCode !== undefined && error.responseCode >= 500 && error.responseCode !== 503;
        return resolve({ result: 'refused', permanent, error: describe(error) });
      }
      resolve({ result: 'inDoubt', error: describe(error) });
    };
    watch(answer);
    connection.send(envelope, stream, answer);
  });
}

/** The bare address of `"Name" <address>` (or the address itself). */
function addressOf(from: string): string {
  return /<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}
