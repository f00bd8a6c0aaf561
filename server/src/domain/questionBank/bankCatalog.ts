import { and, eq, inArray } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { DEFAULT_STEP_KEYS, type QuestionBank } from '@csp/shared';
import type { Database } from '../../storage/database.ts';
import type { KeyValueStore } from '../../kv/index.ts';
import { questionBankVersions, schoolYearSettings } from '../../storage/schema.ts';

export interface ResolvedBank extends QuestionBank {
  source: 'published' | 'bundled';
}

const PUBLISHED_KEY = 'bank:published';
const PUBLISHED_TTL_MS = 60_000;
const versionKey = (version: number) => `bank:version:${version}`;
const VERSION_TTL_MS = 24 * 3600_000;
const MAX_REMEMBERED_PLANS = 50_000;

/**
 * Reads question-bank versions. Published and archived versions never change: each is cached in
 * the shared store and, once read, kept in this process. Drafts are never served from here.
 */
export class BankCatalog {
  private readonly versions = new Map<number, Promise<QuestionBank | null>>();
  /** The version each plan seen by this process pins (null: the bundled bank). */
  private readonly pinnedByPlan = new Map<string, number | null>();
  private readonly db: Database;
  private readonly kv: KeyValueStore;

  constructor(db: Database, kv: KeyValueStore) {
    this.db = db;
    this.kv = kv;
  }

  private async load(version: number): Promise<QuestionBank | null> {
    const cached = await this.kv.get(versionKey(version)).catch(() => null);
    if (cached) return JSON.parse(cached) as QuestionBank;
    const [row] = await this.db
      .select({ version: questionBankVersions.version, steps: questionBankVersions.steps })
      .from(questionBankVersions)
      .where(and(eq(questionBankVersions.version, version), inArray(questionBankVersions.status, ['published', 'archived'])));
    if (!row) return null;
    const bank = { version: row.version, steps: row.steps };
    await this.kv.set(versionKey(version), JSON.stringify(bank), VERSION_TTL_MS).catch(() => {});
    return bank;
  }

  /** A published or archived version, or null. */
  version(version: number): Promise<QuestionBank | null> {
    let cached = this.versions.get(version);
    if (!cached) {
      cached = this.load(version);
      cached.then((bank) => bank ?? this.versions.delete(version)).catch(() => this.versions.delete(version));
      this.versions.set(version, cached);
    }
    return cached;
  }

  async publishedVersion(): Promise<number | null> {
    const cached = await this.kv.get(PUBLISHED_KEY).catch(() => null);
    if (cached) return Number(cached);
    const [row] = await this.db
      .select({ version: questionBankVersions.version })
      .from(questionBankVersions)
      .where(eq(questionBankVersions.status, 'published'))
      .limit(1);
    if (row) await this.kv.set(PUBLISHED_KEY, String(row.version), PUBLISHED_TTL_MS).catch(() => {});
    return row?.version ?? null;
  }

  /** After a publish: every process reads the new published version number. */
  async publishedChanged(): Promise<void> {
    await this.kv.delete(PUBLISHED_KEY);
  }

  /** The version a school year pins, else the published one. */
  async versionForYear(schoolYear: string | undefined): Promise<number | null> {
    if (schoolYear) {
      const [settings] = await this.db
        .select({ version: schoolYearSettings.questionBankVersion })
        .from(schoolYearSettings)
        .where(eq(schoolYearSettings.schoolYear, schoolYear))
        .limit(1);
      if (settings?.version) return settings.version;
    }
    return this.publishedVersion();
  }

  /**
   * The version a plan was last seen to pin, or undefined. A plan keeps the version it was created
   * with, so this tells a step's key before the plan is read; readers still check it against the row.
   */
  pinnedVersionHint(formId: string): number | null | undefined {
    return this.pinnedByPlan.get(formId);
  }

  rememberPinnedVersion(formId: string, version: number | null): void {
    if (this.pinnedByPlan.size >= MAX_REMEMBERED_PLANS) this.pinnedByPlan.clear();
    this.pinnedByPlan.set(formId, version);
  }

  /** The bank for a plan or a year: a stored version when there is one, else the bundled bank. */
  async resolve(version: number | null | undefined): Promise<ResolvedBank> {
    const stored = version ? await this.version(version) : null;
    return stored ? { ...stored, source: 'published' } : { ...BUNDLED_BANK, source: 'bundled' };
  }
}

/** Step keys in bank order; the default order when a bank has none. */
export function stepKeysOf(bank: QuestionBank | null): readonly string[] {
  return bank && bank.steps.length > 0 ? bank.steps.map((step) => step.key) : DEFAULT_STEP_KEYS;
}
