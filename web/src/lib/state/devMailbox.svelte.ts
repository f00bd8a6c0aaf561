import type { MailboxMessage } from '@csp/shared/mail';
import { api, ApiError } from '#lib/api/index.ts';

export const MAILBOX_PAGE_SIZE = 20;

/**
 * The development mailbox (a local demo without SMTP_URL): the messages the service wrote, newest
 * first, a page at a time. `off` when the server sends through SMTP instead (it answers 404).
 */
export class DevMailbox {
  messages = $state<MailboxMessage[]>([]);
  total = $state(0);
  page = $state(1);
  status = $state<'loading' | 'ready' | 'off' | 'failed'>('loading');
  error = $state('');
  #controller: AbortController | null = null;

  async load(page = this.page): Promise<void> {
    this.#controller?.abort();
    const controller = (this.#controller = new AbortController());
    this.status = 'loading';
    try {
      const result = await api.devMailbox({ page, limit: MAILBOX_PAGE_SIZE }, controller.signal);
      this.messages = result.messages;
      this.total = result.total;
      this.page = page;
      this.status = 'ready';
    } catch (cause) {
      if (controller.signal.aborted) return;
      this.status = cause instanceof ApiError && cause.status === 404 ? 'off' : 'failed';
      this.error = cause instanceof ApiError ? cause.message : 'The mailbox could not be read.';
    }
  }

  destroy(): void {
    this.#controller?.abort();
  }
}
