import type { Notification } from '@csp/shared/api/notifications';
import { notificationEventSchema } from '@csp/shared/api/realtime';
import { api } from '#lib/api/index.ts';
import { realtime } from '#lib/realtime/socket.svelte.ts';
import { Loader } from './loader.svelte.ts';

/**
 * The signed-in person's review pings: read once, then pushed by the realtime gateway as they
 * happen (never polled); marking one read is stored on the server. One per tab (`tabNotifications`),
 * listening for the tab's life.
 */
class NotificationsState {
  items = $state<Notification[]>([]);
  readonly #stored = new Loader((signal) => api.notifications(signal), 'Notifications could not be loaded.');
  readonly loaded = $derived.by(() => this.#stored.value !== null);
  /** Why the stored notifications could not be read. */
  readonly error = $derived.by(() => this.#stored.error);
  readonly unread = $derived(this.items.filter((item) => !item.readAt).length);

  constructor() {
    realtime.on('notification', notificationEventSchema, ({ notification }) => {
      if (!this.items.some((item) => item._id === notification._id)) this.items.unshift(notification);
    });
    void this.load();
  }

  /** The stored notifications, after any that arrived live meanwhile. */
  async load(): Promise<void> {
    const result = await this.#stored.load();
    if (!result) return;
    const live = this.items.filter((item) => !result.notifications.some((stored) => stored._id === item._id));
    this.items = [...live, ...result.notifications];
  }

  readonly retry = (): void => void this.load();

  async markRead(notificationId: string): Promise<void> {
    const { notification } = await api.markNotificationRead(notificationId);
    const index = this.items.findIndex((item) => item._id === notificationId);
    if (index >= 0) this.items[index] = notification;
  }
}

let shared: NotificationsState | null = null;
/** The tab's one list, shared by the header's bell and the dashboard (made on first use, kept for the tab's life). */
export const tabNotifications = (): NotificationsState => (shared ??= new NotificationsState());
