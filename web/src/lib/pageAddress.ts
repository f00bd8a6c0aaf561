/** What of an address (SvelteKit's `page.url` or a URL) paging reads. */
interface Address {
  readonly pathname: string;
  readonly searchParams: Pick<URLSearchParams, 'get' | 'entries'>;
}

/**
 * The address of `url` turned to page `page` of the list its `param` pages (page 1 drops the
 * parameter): lists keep their page in the address, so a page can be bookmarked and Back returns to it.
 */
export function pageAddress(url: Address, param: string, page: number): string {
  const search = [...url.searchParams.entries()]
    .filter(([name]) => name !== param)
    .concat(page > 1 ? [[param, String(page)]] : [])
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  return `${url.pathname}${search ? `?${search}` : ''}`;
}

/** The page an address asks for in `param`: a whole number from 1 (anything else is page 1). */
export function pageOf(url: Address, param: string): number {
  return Math.max(1, Math.floor(Number(url.searchParams.get(param))) || 1);
}
