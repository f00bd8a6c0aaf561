import {
  IncomingMessage,
  type afterLoadDocumentPayload,
  type afterUnloadDocumentPayload,
  type onAwarenessUpdatePayload,
  type onChangePayload,
} from '@hocuspocus/server';
import { Redis } from '@hocuspocus/extension-redis';

/**
 * The Hocuspocus Redis extension, publishing a document's changes only while another server
 * process may have it open. The stock extension publishes the document's state vector on every
 * change, which cost about 14 % of the server's CPU per edit in the co-editing benchmark even
 * with a single process.
 *
 * Nothing is lost by waiting: a process that opens a document subscribes to its channel first,
 * then publishes its state vector there; this process answers with every change the other lacks
 * and, from that first message on, publishes its own changes. A process that opens a document
 * already open elsewhere sees the other subscriber at once.
 *
 * Stores take no Redis lock either: each store merges with the stored state under a PostgreSQL
 * row lock (documentStore.ts), so two processes storing one document is safe.
 *
 * While Redis is down documents still open (from the database alone) and edit locally; when it is
 * back, every loaded document subscribes again and exchanges state vectors with its peers, so
 * changes whose publishing failed meanwhile still reach the other processes.
 */
export class PeerAwareRedis extends Redis {
  /** Documents another process has shown (or may have) open since this process loaded them. */
  private readonly sharedDocuments = new Set<string>();
  private readonly onUnavailable: (error: unknown, documentName: string) => void;

  constructor({ onUnavailable, ...configuration }: ConstructorParameters<typeof Redis>[0] & { onUnavailable: (error: unknown, documentName: string) => void }) {
    super(configuration);
    this.onUnavailable = onUnavailable;
    this.sub.on('messageBuffer', (_channel: Buffer, data: Buffer) => this.notePeer(data));
    this.sub.on('ready', () => void this.resyncLoadedDocuments());
  }

  /** Any message from another process about a document: that process has it open. */
  private notePeer(data: Buffer): void {
    const identifierLength = data[0] ?? 0;
    if (data.toString('utf-8', 1, identifierLength + 1) === this.configuration.identifier) return;
    try {
      this.sharedDocuments.add(new IncomingMessage(data.subarray(identifierLength + 1)).readVarString());
    } catch {
      // Not a document message: nothing to learn from it.
    }
  }

  override async afterLoadDocument(payload: afterLoadDocumentPayload): Promise<void> {
    if (!(await this.subscribe(payload))) return;
    // Subscribed now: one more subscriber than this process means another has it open.
    const subscribers = await (this.pub.pubsub('NUMSUB', `${this.configuration.prefix}:${payload.documentName}`) as Promise<[string, number | string]>)
      .then(([, count]) => Number(count))
      .catch(() => Infinity);
    if (subscribers > 1) this.sharedDocuments.add(payload.documentName);
  }

  /** Subscribes and syncs with peers; false (logged) while Redis is down: the document then counts as shared. */
  private async subscribe(payload: Pick<afterLoadDocumentPayload, 'documentName' | 'document'>): Promise<boolean> {
    try {
      await super.afterLoadDocument(payload as afterLoadDocumentPayload);
      return true;
    } catch (error) {
      this.onUnavailable(error, payload.documentName);
      this.sharedDocuments.add(payload.documentName);
      return false;
    }
  }

  /** On every (re)connection: peers may have missed this process's changes, and it theirs. */
  private async resyncLoadedDocuments(): Promise<void> {
    // Before the server configured the extension, nothing is loaded.
    if (!this.instance) return;
    await Promise.all(
      [...this.instance.documents].map(([documentName, document]) => {
        this.sharedDocuments.add(documentName);
        return this.subscribe({ documentName, document });
      }),
    );
  }

  override async onChange(payload: onChangePayload): Promise<void> {
    if (this.sharedDocuments.has(payload.documentName)) await super.onChange(payload);
  }

  override async onAwarenessUpdate(payload: onAwarenessUpdatePayload): Promise<void> {
    if (this.sharedDocuments.has(payload.documentName)) await super.onAwarenessUpdate(payload);
  }

  override async onStoreDocument(): Promise<void> {}

  override async afterUnloadDocument(payload: afterUnloadDocumentPayload): Promise<void> {
    await super.afterUnloadDocument(payload);
    if (!payload.instance.documents.has(payload.documentName)) this.sharedDocuments.delete(payload.documentName);
  }
}
