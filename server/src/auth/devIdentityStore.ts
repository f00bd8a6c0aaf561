import { createHash, createPrivateKey, type JsonWebKey } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { KeyValueStore } from '../kv/store.ts';

const PREFIX = 'devidp:';

/**
 * The development provider's records (interactions, sessions, grants, codes, tokens) in the shared
 * store: with several server processes on one port, each step of a sign-in may reach another one.
 */
export class DevIdentityStore implements Adapter {
  private readonly kv: KeyValueStore;
  private readonly model: string;

  constructor(kv: KeyValueStore, model: string) {
    this.kv = kv;
    this.model = model;
  }

  private key(id: string): string {
    return `${PREFIX}${this.model}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const ttlMs = expiresIn === undefined ? undefined : expiresIn * 1000;
    await this.kv.set(this.key(id), JSON.stringify(payload), ttlMs);
    if (this.model === 'Session' && payload.uid) await this.kv.set(`${PREFIX}sessionUid:${payload.uid}`, id, ttlMs);
    // What a grant issued, so revoking the grant (a code used twice) revokes it all.
    if (payload.grantId && ttlMs) await this.kv.hashSet(`${PREFIX}grant:${payload.grantId}`, this.key(id), '', ttlMs);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const value = await this.kv.get(this.key(id));
    return value === null ? undefined : (JSON.parse(value) as AdapterPayload);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = await this.kv.get(`${PREFIX}sessionUid:${uid}`);
    return id === null ? undefined : this.find(id);
  }

  /** The device flow is not enabled. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const [entry] = await this.kv.getMany([this.key(id)]);
    if (!entry) return;
    const payload = { ...(JSON.parse(entry.value) as AdapterPayload), consumed: Math.floor(Date.now() / 1000) };
    await this.kv.set(this.key(id), JSON.stringify(payload), entry.ttlMs > 0 ? entry.ttlMs : undefined);
  }

  async destroy(id: string): Promise<void> {
    await this.kv.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grantKey = `${PREFIX}grant:${grantId}`;
    const issued = await this.kv.hashGetAll(grantKey);
    await Promise.all([...Object.keys(issued), grantKey].map((key) => this.kv.delete(key)));
  }
}

/** PKCS #8 prefix of a P-256 private key given by its 32-byte scalar alone (OpenSSL derives the public point). */
const P256_PKCS8_PREFIX = Buffer.from('3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420', 'hex');

/**
 * The development provider's ID-token signing key (ES256), derived from the session secret, so
 * every server process signs with the same key, whichever one the app fetches the keys from.
 */
export function devSigningKey(secret: string): JsonWebKey {
  const scalar = createHash('sha256').update(`development identity provider signing key\n${secret}`).digest();
  return createPrivateKey({ key: Buffer.concat([P256_PKCS8_PREFIX, scalar]), format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
}
