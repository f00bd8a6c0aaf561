import { MAIL_KINDS, type MailDelivery, type MailKind, type MailSettings } from '@csp/shared/mail';
import { api, ApiError } from '#lib/api/index.ts';

/**
 * The signed-in person's e-mail preferences (the profile page): read once, changed in the form,
 * stored with one save; `changed` says whether the form differs from what is stored.
 */
export class MailSettingsState {
  stored = $state<MailSettings | null>(null);
  choices = $state<Record<MailKind, MailDelivery> | null>(null);
  error = $state('');

  readonly changed = $derived(!!this.stored && !!this.choices && MAIL_KINDS.some((kind) => this.stored!.preferences[kind] !== this.choices![kind]));

  async load(signal?: AbortSignal): Promise<void> {
    try {
      this.take(await api.mailSettings(signal));
    } catch (cause) {
      if (!signal?.aborted) this.error = cause instanceof ApiError ? cause.message : 'Your e-mail settings could not be read.';
    }
  }

  /** Stores the form's choices; the server's answer is the new record. */
  async save(): Promise<void> {
    if (this.choices) this.take(await api.saveMailPreferences(this.choices));
  }

  private take(settings: MailSettings): void {
    this.stored = settings;
    this.choices = { ...settings.preferences };
    this.error = '';
  }
}
