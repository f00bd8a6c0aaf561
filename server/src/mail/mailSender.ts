import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Storage } from '../storage/database.ts';
import { composeDigests, composeImmediate, type MailSetup } from '../domain/mail/composeMail.ts';
import { claimDueMessages, recordOutcome, settleExpiredLeases } from '../domain/mail/deliverMail.ts';
import { startDailyRun } from '../domain/mail/dailyRun.ts';
import { sendOverSmtp, smtpSettingsOf, type SmtpSettings } from './smtpTransport.ts';

/** How often a sender looks for work; mail may wait this long after the change that caused it. */
const POLL_MS = 2_000;
/** Messages claimed (and sent over one SMTP session) at a time. */
const SEND_BATCH = 20;

export interface MailSenderOptions {
  /** The clock (tests move it). */
  now?: () => Date;
  /** Look for work on a timer (false in tests that turn the sender by hand). */
  poll?: boolean;
}

export interface MailTurn {
  composed: number;
  sent: number;
  refused: number;
  inDoubt: number;
}

/**
 * The outbound mail of one server process: turns outbox items into messages, runs the day's
 * reminders and digests once a day (one process takes each day), and sends queued messages
 * through SMTP within the per-minute bound. Any number of processes run one; the database decides
 * who composes and sends what, so each message goes out once.
 */
export class MailSender {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly setup: MailSetup;
  private readonly smtp: SmtpSettings | undefined;
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private turn: Promise<MailTurn> | undefined;
  private stopped = false;
  private readonly storage: Storage;
  private readonly config: Config;
  private readonly logger: Logger;
  private readonly options: MailSenderOptions;

  constructor(storage: Storage, config: Config, logger: Logger, options: MailSenderOptions = {}) {
    this.storage = storage;
    this.config = config;
    this.logger = logger;
    this.options = options;
    this.setup = { appUrl: config.appUrl, secret: config.sessionSecret, transport: config.mail.transport };
    this.smtp = config.mail.smtpUrl ? smtpSettingsOf(config.mail.smtpUrl, config.mail.from, config.appUrl) : undefined;
    this.now = options.now ?? (() => new Date());
  }

  start(): void {
    if (this.config.mail.transport === 'held') {
      this.logger.warn('SMTP_URL is not set: e-mail is kept in the queue and sent once SMTP_URL is configured');
    }
    if (this.options.poll === false) return;
    const tick = () => {
      this.runOnce()
        .catch((error: unknown) => this.logger.error({ err: error }, 'mail turn failed; retrying at the next'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, POLL_MS);
        });
    };
    this.timer = setTimeout(tick, POLL_MS);
  }

  /** One turn of everything; a turn already running is joined, not doubled. */
  runOnce(): Promise<MailTurn> {
    this.turn ??= this.work().finally(() => (this.turn = undefined));
    return this.turn;
  }

  private async work(): Promise<MailTurn> {
    const db = this.storage.db;
    const turn: MailTurn = { composed: 0, sent: 0, refused: 0, inDoubt: 0 };
    turn.inDoubt += await settleExpiredLeases(db, this.now());
    for (let composed = await composeImmediate(db, this.setup); composed > 0 && !this.stopped; composed = await composeImmediate(db, this.setup)) {
      turn.composed += composed;
    }
    const now = this.now();
    const dailyAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), this.config.mail.dailyHourUtc));
    if (now >= dailyAt) {
      const day = dailyAt.toISOString().slice(0, 10);
      if (await startDailyRun(db, day, now)) this.logger.info({ day }, 'daily mail run: deadline reminders queued');
      // Every turn after the daily hour: digests not yet written today are (once per person and day).
      turn.composed += await composeDigests(db, this.setup, day, dailyAt);
      // The day's reminders of people who take them at once.
      turn.composed += await composeImmediate(db, this.setup);
    }
    if (this.smtp) await this.send(turn);
    return turn;
  }

  private async send(turn: MailTurn): Promise<void> {
    while (!this.stopped) {
      const claimed = await claimDueMessages(this.storage.db, this.owner, this.now(), this.config.mail.ratePerMinute, SEND_BATCH);
      if (claimed.length === 0) return;
      const outgoing = claimed.map((row) => ({ id: row.id, to: row.toAddress, subject: row.subject, text: row.text, html: row.html, headers: row.headers }));
      await sendOverSmtp(this.smtp!, outgoing, async (message, outcome) => {
        const attempts = claimed.find((row) => row.id === message.id)!.attempts;
        await recordOutcome(this.storage.db, this.owner, { id: message.id, attempts }, outcome, this.now());
        if (outcome.result === 'sent') turn.sent++;
        else if (outcome.result === 'inDoubt') turn.inDoubt++;
        else if (outcome.result === 'refused') {
          turn.refused++;
          this.logger.warn({ messageId: message.id, error: outcome.error, attempts }, 'SMTP server refused a message; it is retried later');
        }
      });
      if (claimed.length < SEND_BATCH) return;
    }
  }

  /** Stops looking for work and waits for the turn in progress (a message being sent is finished). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.turn?.catch(() => {});
  }
}
