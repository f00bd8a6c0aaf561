import type { AuditFilter } from '@csp/shared/api/audit';

/** What the Audit log page shows, as it stands in the address (so a filtered view can be shared and reloaded). */
export interface AuditView {
  actorId: string;
  /** The actor's e-mail, shown in the filter (the id is what filters). */
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  /** Calendar days (YYYY-MM-DD) in the reader's time zone. */
  from: string;
  to: string;
  page: number;
  limit: number;
}

export const PAGE_SIZES = [25, 50, 100, 200] as const;
const DEFAULT_PAGE_SIZE = 50;
const FILTER_KEYS = ['actorId', 'actor', 'action', 'targetType', 'targetId', 'from', 'to'] as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The view an address asks for; values it cannot use fall back to the defaults. */
export function viewOf(params: Pick<URLSearchParams, 'get'>): AuditView {
  const text = (key: string) => (params.get(key) ?? '').trim();
  const page = Number(text('page'));
  const limit = Number(text('limit'));
  return {
    actorId: text('actorId'),
    actor: text('actor'),
    action: text('action'),
    targetType: text('targetType'),
    targetId: text('targetId'),
    from: text('from'),
    to: text('to'),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_PAGE_SIZE,
  };
}

/** The address of a view: only the values that differ from the defaults. */
export function hrefOf(view: AuditView): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) if (view[key]) params.set(key, view[key]);
  if (view.page > 1) params.set('page', String(view.page));
  if (view.limit !== DEFAULT_PAGE_SIZE) params.set('limit', String(view.limit));
  const search = params.toString();
  return `/admin/audit-log${search ? `?${search}` : ''}`;
}

/** Whether any filter is set. */
export const isFiltered = (view: AuditView) => FILTER_KEYS.some((key) => view[key] !== '');

/** A calendar day's first and last instants in the reader's time zone, as the API takes them. */
const dayStart = (day: string) => (DAY.test(day) && !Number.isNaN(Date.parse(`${day}T00:00:00`)) ? new Date(`${day}T00:00:00`).toISOString() : day);
const dayEnd = (day: string) => (DAY.test(day) && !Number.isNaN(Date.parse(`${day}T00:00:00`)) ? new Date(`${day}T23:59:59.999`).toISOString() : day);

/**
 * The API's filter for a view: the days become instants of the reader's time zone. A value the page
 * cannot read goes as it is, so the server names what is wrong with it.
 */
export function apiFilterOf(view: AuditView): AuditFilter {
  const filter: AuditFilter = {};
  if (view.actorId) filter.actorId = view.actorId;
  if (view.action) filter.action = view.action;
  if (view.targetType) filter.targetType = view.targetType;
  if (view.targetId) filter.targetId = view.targetId;
  if (view.from) filter.from = dayStart(view.from);
  if (view.to) filter.to = dayEnd(view.to);
  return filter;
}

/** The reader's time zone, named ("America/New_York"). */
export const timeZoneName = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
