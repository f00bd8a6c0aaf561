import type { SortingState } from '@tanstack/svelte-table';
import { USER_SORTS, type User, type UserList, type UserSort } from '@csp/shared/api/users';
import { usersApi, type UserFilters } from '#lib/api/admin/users.ts';
import { Loader } from '#lib/state/loader.svelte.ts';

export const PAGE_SIZE = 25;

/** The filter form's values ('' means any). */
export interface FilterValues {
  q: string;
  schoolName: string;
  level: string;
  status: '' | 'active' | 'inactive';
  signIn: '' | 'never' | 'signed-in';
}

export const NO_FILTERS: FilterValues = { q: '', schoolName: '', level: '', status: '', signIn: '' };

/** What the list shows, kept in the address (so a view can be bookmarked, and Back returns to it). */
export interface ListView {
  filters: FilterValues;
  page: number;
  sorting: SortingState;
}

const isSort = (id: string): id is UserSort => (USER_SORTS as readonly string[]).includes(id);
const oneOf = <T extends string>(value: string | null, allowed: readonly T[]): T | '' =>
  (allowed as readonly string[]).includes(value ?? '') ? (value as T) : '';

/** The view an address asks for; anything unknown in it is ignored. */
export function readView(url: { searchParams: { get(name: string): string | null } }): ListView {
  const params = url.searchParams;
  const sort = params.get('sort') ?? '';
  const page = Number(params.get('page'));
  return {
    filters: {
      q: params.get('q') ?? '',
      schoolName: params.get('school') ?? '',
      level: oneOf(params.get('level'), ['1', '2', '3', '4', '5']),
      status: oneOf(params.get('status'), ['active', 'inactive'] as const),
      signIn: oneOf(params.get('signin'), ['never', 'signed-in'] as const),
    },
    page: Number.isInteger(page) && page > 1 ? page : 1,
    sorting: isSort(sort) ? [{ id: sort, desc: params.get('order') === 'desc' }] : [],
  };
}

/** The address of a view (only what differs from the default). */
export function viewHref(pathname: string, view: ListView): string {
  const { q, schoolName, level, status, signIn } = view.filters;
  const [sort] = view.sorting;
  const entries: [string, string][] = [
    ['q', q.trim()],
    ['school', schoolName],
    ['level', level],
    ['status', status],
    ['signin', signIn],
    ['sort', sort?.id ?? ''],
    ['order', sort?.desc ? 'desc' : ''],
    ['page', view.page > 1 ? String(view.page) : ''],
  ];
  const search = entries
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
  return search ? `${pathname}?${search}` : pathname;
}

/** The request for a view. */
export function viewQuery(view: ListView): UserFilters {
  const { q, schoolName, level, status, signIn } = view.filters;
  const [sort] = view.sorting;
  return {
    q: q.trim() || undefined,
    schoolName: schoolName || undefined,
    level: level ? Number(level) : undefined,
    active: status === '' ? undefined : status === 'active',
    neverSignedIn: signIn === '' ? undefined : signIn === 'never',
    sort: sort && isSort(sort.id) ? sort.id : undefined,
    order: sort ? (sort.desc ? 'desc' : 'asc') : undefined,
    page: view.page,
    limit: PAGE_SIZE,
  };
}

/** What a row's buttons open. */
export type UserAction = 'edit' | 'access' | 'history' | 'delete';

/** One page of the user list as the server filters, sorts and pages it; never the whole district. */
export class UserDirectory {
  readonly #page: Loader<UserList>;
  readonly users = $derived.by(() => this.#page.value?.users ?? []);
  readonly total = $derived.by(() => this.#page.value?.total ?? 0);
  /** True once a first page arrived. */
  readonly loaded = $derived.by(() => this.#page.value !== null);
  readonly loading = $derived.by(() => this.#page.loading);
  readonly error = $derived.by(() => this.#page.error);
  /** Every user seen on any page, by id: names the selected rows and bulk outcomes on other pages. */
  known = $state<Record<string, User>>({});

  /** `query`: the request for the view shown (read again whenever it changes, see `follow`). */
  constructor(query: () => UserFilters) {
    this.#page = new Loader(async (signal) => {
      const list = await usersApi.list(query(), signal);
      this.known = { ...this.known, ...Object.fromEntries(list.users.map((user) => [user._id, user])) };
      return list;
    }, 'The users could not be loaded.');
  }

  /** For `$effect`: the page for the view, read again when the view changes; the page shown stays meanwhile. */
  follow(): () => void {
    return this.#page.follow({ clear: false });
  }

  /** The same page again, after a change (or Try again). */
  readonly reload = (): void => void this.#page.load();

  nameOf(userId: string): string {
    const user = this.known[userId];
    return user ? `${user.name} (${user.email})` : userId;
  }
}
