import type { SortingState } from '@tanstack/svelte-table';
import { USER_SORTS, type User, type UserSort } from '@csp/shared/api/users';
import { ApiError } from '#lib/api/client.ts';
import { usersApi, type UserFilters } from '#lib/api/admin/users.ts';

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

const isSort = (id: string): id is UserSort => (USER_SORTS as readonly string[]).includes(id);

/** One page of the user list as the server filters, sorts and pages it; never the whole district. */
export class UserDirectory {
  filters = $state<FilterValues>({ ...NO_FILTERS });
  page = $state(1);
  sorting = $state<SortingState>([]);
  users = $state<User[]>([]);
  total = $state(0);
  /** True once a first page arrived. */
  loaded = $state(false);
  loading = $state(false);
  error = $state('');
  /** Bumped to load the same page again (after a change, or Try again). */
  version = $state(0);
  /** Every user seen on any page, by id: names the selected rows and bulk outcomes on other pages. */
  known = $state<Record<string, User>>({});

  /** The request the current state asks for (read inside an effect, so a change reloads). */
  get query(): UserFilters {
    const { q, schoolName, level, status, signIn } = this.filters;
    const [sort] = this.sorting;
    return {
      q: q.trim() || undefined,
      schoolName: schoolName || undefined,
      level: level ? Number(level) : undefined,
      active: status === '' ? undefined : status === 'active',
      neverSignedIn: signIn === '' ? undefined : signIn === 'never',
      sort: sort && isSort(sort.id) ? sort.id : undefined,
      order: sort ? (sort.desc ? 'desc' : 'asc') : undefined,
      page: this.page,
      limit: PAGE_SIZE,
    };
  }

  async load(query: UserFilters, signal: AbortSignal): Promise<void> {
    this.loading = true;
    this.error = '';
    try {
      const list = await usersApi.list(query, signal);
      this.users = list.users;
      this.total = list.total;
      this.known = { ...this.known, ...Object.fromEntries(list.users.map((user) => [user._id, user])) };
      this.loaded = true;
      // A page past the end (after deletes): go to the last page there is.
      if (list.users.length === 0 && list.total > 0 && query.page > 1) this.page = Math.ceil(list.total / PAGE_SIZE);
    } catch (error) {
      if (signal.aborted) return;
      this.error = error instanceof ApiError ? error.message : 'The users could not be loaded.';
    } finally {
      if (!signal.aborted) this.loading = false;
    }
  }

  /** New filters start again at page 1. */
  applyFilters(values: FilterValues): void {
    this.filters = { ...values };
    this.page = 1;
  }

  reload(): void {
    this.version++;
  }

  nameOf(userId: string): string {
    const user = this.known[userId];
    return user ? `${user.name} (${user.email})` : userId;
  }
}
